// The adjudication of nugget labels, keyboard first. Without this file the page is a plain
// form POST with links, and works the same.
//
// ↓ / ↑ move between the disputed nuggets; s, p and n choose the selected one's final label
// (support, partial support, no support) and move on; Enter saves every final label chosen
// (Ctrl+Enter inside the note), the server then shows the next undecided answer; c writes a
// note and Esc leaves it; j / k the next / previous answer of the list, Shift+J the next
// undecided one without saving.
(function () {
  "use strict";
  var form = document.getElementById("adjudicate-form");
  var KEYS = { s: "support", p: "partial_support", n: "not_support" };
  var rows = form ? Array.prototype.slice.call(form.querySelectorAll("li[data-decidable]")) : [];
  var selected = 0;
  var saving = false;
  for (var i = 0; i < rows.length; i++) {
    if (!rows[i].querySelector("input:checked")) { selected = i; break; }
  }

  function show() {
    rows.forEach(function (row, index) {
      row.classList.toggle("is-selected", index === selected);
      if (index === selected) row.setAttribute("aria-current", "true");
      else row.removeAttribute("aria-current");
    });
    if (rows[selected]) rows[selected].scrollIntoView({ block: "nearest" });
  }

  function follow(nav) {
    var link = document.querySelector('[data-nav="' + nav + '"]');
    if (link) window.location.assign(link.href);
  }

  function choose(support) {
    var row = rows[selected];
    if (!row) return;
    var radio = row.querySelector('input[value="' + support + '"]');
    if (!radio) return;
    radio.checked = true;
    selected = Math.min(selected + 1, rows.length - 1);
    show();
  }

  function save() {
    if (!form || saving) return;
    saving = true;
    form.requestSubmit ? form.requestSubmit() : form.submit();
  }

  rows.forEach(function (row, index) {
    row.addEventListener("click", function () { selected = index; show(); });
  });

  document.addEventListener("keydown", function (event) {
    var inField = event.target.closest && event.target.closest("textarea, input[type=text]");
    if (inField) {
      if (event.key === "Escape") event.target.blur();
      else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); save(); }
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowDown") { event.preventDefault(); selected = Math.min(selected + 1, rows.length - 1); show(); }
    else if (event.key === "ArrowUp") { event.preventDefault(); selected = Math.max(selected - 1, 0); show(); }
    else if (KEYS[event.key]) { event.preventDefault(); choose(KEYS[event.key]); }
    else if (event.key === "Enter") { event.preventDefault(); save(); }
    else if (event.key === "c") {
      event.preventDefault();
      var note = form && form.querySelector("textarea[name=note]");
      if (note) note.focus();
    }
    else if (event.key === "J") follow("undecided");
    else if (event.key === "j") follow("next");
    else if (event.key === "k") follow("prev");
  });
  show();
})();
