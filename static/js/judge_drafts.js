// Drafts on the judging page (static/js/judge.js); static/js/drafts.js stores them. What is
// chosen or typed and not saved yet is kept per (user, assignment, item) with the revision of
// the saved judgment it was made against. Coming back (a reload, a crash, a closed tab)
// brings it back as "restored, not saved yet", unless the saved judgment changed since: a
// newer save wins over an older draft.
(function () {
  "use strict";

  var drafts = window.qrelsmithDrafts;
  var hits = window.qrelsmithHits;

  function key(page) {
    return drafts.key(document.body.dataset.user, page.form.dataset.assignment, page.form.dataset.item);
  }

  // Keeps the unsaved hits of the page (nothing when every hit is as saved).
  function save(page) {
    var draftKey = key(page);
    if (!draftKey) return;
    var unsaved = {};
    page.hits.forEach(function (hit) {
      if (!hit.classList.contains("is-dirty")) return;
      unsaved[hit.dataset.hit] = {
        choice: hits.choice(hit), comment: hits.comment(hit), answers: hits.answers(hit), revision: hit.dataset.revision,
      };
    });
    drafts.write(draftKey, unsaved);
  }

  // ``flags`` are the task's flag codes (they need a comment); ``status`` shows the outcome.
  function discard(page, flags, status) {
    page.hits.forEach(function (hit) {
      if (!hit.classList.contains("is-restored")) return;
      hits.setChoice(hit, hit.dataset.choice);
      hits.setAnswers(hit, hits.savedAnswers(hit));
      hit.querySelector("textarea").value = hit.dataset.comment;
      hit.classList.remove("is-restored");
      hits.mark(hit, flags);
    });
    save(page);
    status("Draft discarded: the saved judgments are shown.", "info");
  }

  // Puts a draft's hits back, unless the saved judgment changed since the draft was made.
  function restore(page, flags, status) {
    var draft = drafts.read(key(page));
    if (!draft) return;
    var restored = 0;
    page.hits.forEach(function (hit) {
      var kept = draft.hits[hit.dataset.hit];
      if (!kept || String(kept.revision) !== hit.dataset.revision) return;  // newer save wins
      hits.setChoice(hit, kept.choice || "");
      hits.setAnswers(hit, kept.answers === undefined ? hits.savedAnswers(hit) : kept.answers);
      hit.querySelector("textarea").value = kept.comment || "";
      hit.classList.add("is-restored");
      hits.mark(hit, flags);
      if (hit.classList.contains("is-dirty")) restored += 1;
      else hit.classList.remove("is-restored");
    });
    save(page);  // drops what did not apply
    if (!restored) return;
    var what = restored === 1 ? "1 unsaved choice" : restored + " unsaved choices";
    status("Restored " + what + " from your last visit — not saved yet. Enter saves.", "info",
      { label: "Discard", run: function () { discard(page, flags, status); } }, 8000);
  }

  function clear(page) { drafts.clear(key(page)); }

  window.qrelsmithJudgeDrafts = { save: save, restore: restore, clear: clear };
})();
