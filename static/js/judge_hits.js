// One hit of the judging page (static/js/judge.js): its chosen grade or flag and its comment,
// whether that differs from the saved judgment (the hit's data-choice, data-comment and
// data-revision), the state line and error box it shows, and taking a saved judgment in.
(function () {
  "use strict";

  function choice(hit) {
    var checked = hit.querySelector("input[type=radio]:checked");
    return checked ? checked.value : "";
  }

  function comment(hit) { return hit.querySelector("textarea").value; }

  function setChoice(hit, value) {
    Array.prototype.forEach.call(hit.querySelectorAll("input[type=radio]"), function (radio) {
      radio.checked = radio.value === value;
    });
  }

  // Marks the hit dirty (unsaved), judged or restored; ``flags`` (flag code -> label) are the
  // choices that need a comment.
  function mark(hit, flags) {
    var chosen = choice(hit);
    var dirty = chosen !== hit.dataset.choice || comment(hit).trim() !== hit.dataset.comment;
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
    hit.querySelector("textarea").value = j.comment || "";
    showError(hit, "");
    mark(hit, flags);
  }

  window.qrelsmithHits = {
    choice: choice, comment: comment, setChoice: setChoice, mark: mark, showError: showError,
    apply: apply,
  };
})();
