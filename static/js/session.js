// Every page: logging out clears the judging drafts kept in this browser (static/js/judge.js
// keeps unsaved grades and comments in localStorage), so the next person on a shared
// computer finds none of them, whoever made them.
(function () {
  "use strict";

  var DRAFT_PREFIX = "qrelsmith.draft.";

  function clearDrafts() {
    try {
      var storage = window.localStorage;
      for (var i = storage.length - 1; i >= 0; i -= 1) {
        var key = storage.key(i);
        if (key && key.indexOf(DRAFT_PREFIX) === 0) storage.removeItem(key);
      }
    } catch (error) { /* no storage: nothing was kept */ }
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("form[data-clears-drafts]"), function (form) {
      form.addEventListener("submit", clearDrafts);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
