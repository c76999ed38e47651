// The judging page's keyboard (static/js/judge.js calls listen() with what each key does).
// The task's grade and flag keys choose for the focused hit, its question keys tick or untick
// the extra questions (machine-generated? unrelated information?); j / k move between hits, t opens
// the focused hit's thread and q the topic's, Enter submits, ← / → leave for the previous /
// next item, ? shows the legend, g the definitions, c the comment box, Escape closes them.
// Keep these in step with assessment.core.guidelines.RESERVED_KEYS, which keeps scales off them.
(function () {
  "use strict";

  // Shows or hides one overlay (the legend, the definitions), the other one hidden.
  function toggle(id, root) {
    var panel = document.getElementById(id);
    if (!panel) return;
    ["legend", "definitions"].forEach(function (other) {  // one overlay at a time
      var card = document.getElementById(other);
      if (card && other !== id) card.hidden = true;
    });
    panel.hidden = !panel.hidden;
    var button = root.querySelector('[data-toggle="' + id + '"]');
    if (button) button.setAttribute("aria-expanded", String(!panel.hidden));
  }

  // Keys typed into a comment are text, except Escape (back to the hits) and Ctrl/⌘+Enter.
  function inText(event, page, act) {
    var target = event.target;
    if (event.key === "Escape") { event.preventDefault(); target.blur(); act.setFocus(page.focus, false); }
    else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); act.submit(); }
  }

  function onKey(event, page, act) {
    var target = event.target;
    if (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text")) {
      inText(event, page, act);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key;  // Tab is never taken: it reaches every link and control
    var lower = key.length === 1 ? key.toLowerCase() : key;
    if (key.length === 1 && Object.prototype.hasOwnProperty.call(page.questionKeys, lower)) {
      event.preventDefault();
      act.answer(page.questionKeys[lower]);
    } else if (key.length === 1 && Object.prototype.hasOwnProperty.call(page.keys, lower)) {
      event.preventDefault();
      act.choose(page.keys[lower]);
    } else if (key === "j" || key === "k") {
      event.preventDefault();
      act.setFocus(page.focus + (key === "k" ? -1 : 1));
    } else if (lower === "t" || lower === "q") {
      event.preventDefault();
      act.openThread(lower === "q" ? "topic" : "hit");
    } else if (key === "Enter") {
      if (target.tagName === "A" || target.tagName === "BUTTON" || target.tagName === "SUMMARY") return;
      event.preventDefault();
      act.submit();
    } else if (key === "ArrowRight" || key === "ArrowLeft") {
      event.preventDefault();
      act.leave(key === "ArrowRight" ? "next" : "prev");
    } else if (key === "?") {
      event.preventDefault();
      toggle("legend", page.root);
    } else if (key === "g") {
      event.preventDefault();
      toggle("definitions", page.root);
    } else if (key === "c") {
      event.preventDefault();
      page.hits[page.focus].querySelector("textarea").focus();
    } else if (key === "Escape") {
      ["legend", "definitions"].forEach(function (id) { var p = document.getElementById(id); if (p) p.hidden = true; });
    }
  }

  // ``currentPage()`` is the page the keys act on (null before one is set up); ``act`` holds
  // choose, answer, setFocus, openThread, submit and leave.
  function listen(currentPage, act) {
    document.addEventListener("keydown", function (event) {
      var page = currentPage();
      if (page) onKey(event, page, act);
    });
  }

  window.qrelsmithJudgeKeys = { listen: listen, toggle: toggle };
})();
