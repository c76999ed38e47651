// One hit of the judging page (static/js/judge.js): its chosen grade or flag, its comment and
// its answers to the task's extra questions (checkboxes), whether that differs from the saved
// judgment (the hit's data-choice, data-comment, data-revision and its questions' data-answers),
// the state line and error box it shows, and taking a saved judgment in.
(function () {
  "use strict";

  function choice(hit) {
    var checked = hit.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "";
  }

  function comment(hit) { return hit.querySelector("textarea").value; }

  function boxes(hit) { return Array.prototype.slice.call(hit.querySelectorAll("input[data-question]")); }

  // The answers as "mg:1 ui:0" in page order ("" when no question is asked on this topic).
  function answers(hit) {
    return boxes(hit).map(function (box) { return box.dataset.question + ":" + (box.checked ? 1 : 0); }).join(" ");
  }

  // The answers as the JSON endpoint takes them ({mg: true, ui: false}), or null when none.
  function answersObject(hit) {
    var found = boxes(hit);
    if (!found.length) return null;
    var result = {};
    found.forEach(function (box) { result[box.dataset.question] = box.checked; });
    return result;
  }

  function savedAnswers(hit) {
    var set = hit.querySelector("[data-answers]");
    return set ? set.dataset.answers : "";
  }

  // Ticks the boxes as ``signature`` ("mg:1 ui:0") says.
  function setAnswers(hit, signature) {
    var ticked = {};
    (signature || "").split(" ").forEach(function (part) {
      var pair = part.split(":");
      if (pair.length === 2) ticked[pair[0]] = pair[1] === "1";
    });
    boxes(hit).forEach(function (box) { box.checked = !!ticked[box.dataset.question]; });
  }

  function setChoice(hit, value) {
    Array.prototype.forEach.call(hit.querySelectorAll("input[type=radio]"), function (radio) {
      radio.checked = radio.value === value;
    });
  }

  // Marks the hit dirty (unsaved), judged or restored; ``flags`` (flag code -> label) are the
  // choices that need a comment.
  function mark(hit, flags) {
    var chosen = choice(hit);
    var dirty = chosen !== hit.dataset.choice || comment(hit).trim() !== hit.dataset.comment ||
      answers(hit) !== savedAnswers(hit);
    hit.classList.toggle("is-dirty", dirty);
    hit.classList.toggle("is-judged", !!chosen && !dirty);
    if (!dirty) hit.classList.remove("is-restored");
    hit.classList.toggle("needs-comment", !!flags[chosen] && !comment(hit).trim());
    var state = hit.querySelector("[data-state]");
    if (state) {
      state.textContent = !dirty ? (chosen ? "saved" : "not judged")
        : hit.classList.contains("is-restored") ? "restored, not saved yet" : "not saved yet";
    }
  }

  function showError(hit, text) {
    var box = hit.querySelector("[data-error]");
    box.textContent = text || "";
    box.hidden = !text;
    hit.classList.toggle("has-error", !!text);
  }

  // The saved judgment ``j`` (the JSON endpoint's shape) becomes what the hit shows and holds.
  function apply(hit, j, flags) {
    var value = j.grade === null || j.grade === undefined ? j.flag : String(j.grade);
    hit.dataset.choice = value;
    hit.dataset.comment = (j.comment || "").trim();
    hit.dataset.revision = String(j.revision);
    hit.classList.remove("is-restored");
    setChoice(hit, value);
    var set = hit.querySelector("[data-answers]");
    if (set) {
      var given = j.answers || {};
      boxes(hit).forEach(function (box) { box.checked = !!given[box.dataset.question]; });
      set.dataset.answers = answers(hit);
    }
    hit.querySelector("textarea").value = j.comment || "";
    showError(hit, "");
    mark(hit, flags);
  }

  window.qrelsmithHits = {
    choice: choice, comment: comment, setChoice: setChoice, mark: mark, showError: showError,
    apply: apply, answers: answers, answersObject: answersObject, savedAnswers: savedAnswers,
    setAnswers: setAnswers,
  };
})();
