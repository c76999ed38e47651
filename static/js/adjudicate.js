// The organizer's adjudication page, keyboard first. Without this file the page is a plain
// form POST with links, and works the same.
//
// - The task's grade keys (from #adjudicate-keys: key -> grade) choose the final grade.
// - Enter saves (Ctrl+Enter inside the note); the server then moves on to the next undecided
//   dispute. j / → next and k / ← previous dispute of the list; Shift+J / Shift+→ the next
//   undecided one without saving; c the note (Esc leaves it); t / o open the post's / the
//   topic's thread in a new tab; g the definitions; ? the legend.
// - Navigation keys are ones a task's scale can never take (assessment/core/guidelines.py
//   RESERVED_KEYS, or keys that are not printable characters), so they never clash with a
//   grade key.
// - Changing the topic or the grade gap applies the filter at once.
(function () {
  "use strict";

  function $(selector, scope) { return (scope || document).querySelector(selector); }
  function $all(selector, scope) {
    return Array.prototype.slice.call((scope || document).querySelectorAll(selector));
  }

  var root = $("#adjudicate-app");
  if (!root) return;
  root.classList.add("has-js");
  var blob = $("#adjudicate-keys");
  var GRADE_KEYS = blob ? JSON.parse(blob.textContent) : {};
  var form = $("#decide-form");
  var saving = false;

  function follow(nav) {
    var link = $('[data-nav="' + nav + '"]', root);
    if (link) window.location.assign(link.href);
  }

  function openThread(which) {
    var link = $('[data-key-thread="' + which + '"]', root);
    if (link) link.click(); // target=_blank rel=noopener: a new tab, as a click would
  }

  function toggle(id) {
    var card = document.getElementById(id);
    if (!card) return;
    card.hidden = !card.hidden;
    $all('[data-toggle="' + id + '"]', root).forEach(function (button) {
      button.setAttribute("aria-expanded", String(!card.hidden));
    });
  }

  function choose(value) {
    if (!form) return;
    var radio = $('input[name=grade][value="' + value + '"]', form);
    if (radio) {
      radio.checked = true;
      form.classList.add("is-dirty");
    }
  }

  function save() {
    if (!form || saving) return;
    if (!$("input[name=grade]:checked", form)) {
      form.classList.add("needs-grade");
      var first = $("input[name=grade]", form);
      if (first) first.focus();
      return;
    }
    saving = true;
    var button = $("button[type=submit]", form);
    if (button) button.disabled = true;
    form.submit();
  }

  function onKey(event) {
    var target = event.target;
    var tag = target.tagName;
    var inText = tag === "TEXTAREA" || (tag === "INPUT" && target.type === "text");
    if (inText) {
      if (event.key === "Escape") { event.preventDefault(); target.blur(); }
      else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); save(); }
      return;
    }
    if (tag === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key;
    var lower = key.length === 1 ? key.toLowerCase() : key;
    if (key.length === 1 && GRADE_KEYS[lower] !== undefined) {
      event.preventDefault();
      choose(GRADE_KEYS[lower]);
    } else if (key === "Enter") {
      // A focused link or button does its own thing; anywhere else Enter saves.
      if (tag === "A" || tag === "BUTTON" || tag === "SUMMARY") return;
      event.preventDefault();
      save();
    } else if ((lower === "j" || key === "ArrowRight") && event.shiftKey) {
      event.preventDefault();
      follow("undecided");
    } else if (lower === "j" || key === "ArrowRight") {
      event.preventDefault();
      follow("next");
    } else if (lower === "k" || key === "ArrowLeft") {
      event.preventDefault();
      follow("prev");
    } else if (lower === "c" && form) {
      event.preventDefault();
      $("textarea[name=note]", form).focus();
    } else if (lower === "t" || lower === "q") {
      event.preventDefault();
      openThread(lower === "t" ? "post" : "topic");
    } else if (lower === "g") {
      event.preventDefault();
      toggle("definitions");
    } else if (key === "?") {
      event.preventDefault();
      toggle("legend");
    } else if (key === "Escape") {
      $all(".overlay-card", root).forEach(function (card) { card.hidden = true; });
    }
  }

  document.addEventListener("keydown", onKey);
  $all("[data-toggle]", root).forEach(function (button) {
    button.addEventListener("click", function () { toggle(button.dataset.toggle); });
  });
  if (form) {
    form.addEventListener("submit", function (event) {
      if (saving) { event.preventDefault(); return; }
      if (!$("input[name=grade]:checked", form)) { event.preventDefault(); save(); return; }
      saving = true; // a second click must not post twice
    });
    form.addEventListener("change", function () {
      form.classList.remove("needs-grade");
      form.classList.add("is-dirty");
    });
  }
  // The filter applies itself when a value changes; its button stays for a keyboard user.
  $all("form[data-autosubmit]", root).forEach(function (filter) {
    $all("select", filter).forEach(function (select) {
      select.addEventListener("change", function () { filter.submit(); });
    });
  });
})();
