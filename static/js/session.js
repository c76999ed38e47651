// Every page: logging out clears the judging drafts kept in this browser (static/js/drafts.js
// says where static/js/judge.js keeps unsaved grades and comments), so the next person on a
// shared computer finds none of them, whoever made them.
(function () {
  "use strict";

  function start() {
    var drafts = window.qrelsmithDrafts;
    if (!drafts) return;  // drafts.js did not load: this browser kept none
    Array.prototype.forEach.call(document.querySelectorAll("form[data-clears-drafts]"), function (form) {
      form.addEventListener("submit", drafts.clearAll);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
