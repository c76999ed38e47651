// The organizer's guidelines page: show only the grade rows of the chosen scale (0..G).
// Without this file every row of the saved scale shows and rows above G are ignored on save.
(function () {
  "use strict";
  function start() {
    var select = document.querySelector("[data-guidelines-top]");
    if (!select) return;
    function sync() {
      var top = Number(select.value);
      document.querySelectorAll(".grade-row[data-grade]").forEach(function (row) {
        row.hidden = Number(row.dataset.grade) > top;
      });
    }
    select.addEventListener("change", sync);
    sync();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
