// The judging page, keyboard first. Without this file the page is a plain form POST.
//
// - Keys (static/js/judge_keys.js): the task's grade and flag keys (the page's #judge-scale
//   JSON) act on the focused hit. Tab is the browser's own: it reaches every link and
//   control, and focusing something inside a hit makes that hit the focused one.
// - Drafts (static/js/judge_drafts.js): unsaved choices and comments survive a reload; a
//   successful submit clears them; logging out clears every draft of the browser.
// - Submit goes to the JSON endpoint (data-api) without reloading; a failed request keeps the
//   page as it is and retries with the same client token, so the server stores it once.
// - Extra questions (machine-generated? unrelated information?) asked on the topic are
//   checkboxes under each hit, ticked by their keys; they are sent with the grade.
// - After a submit the next unjudged item is fetched and swapped in (no full reload).
// - Active time (static/js/active_clock.js): time with the tab visible; an idle gap over two
//   minutes is not counted.
// - Coming back to the tab re-reads the item's judgments, so a second tab shows the latest.
(function () {
  "use strict";

  var RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 15000];
  // The task's scale, read from the page's #judge-scale JSON by readScale():
  // key -> choice (a grade as text or a flag code), flag code -> label, what to choose.
  // Keys that are not grades (assessment.core.guidelines.RESERVED_KEYS keeps scales off them):
  //   j k t q c g ? Enter Escape ← →, and on document items x . , (static/js/highlight.js)
  var KEY_CHOICES = {};
  var QUESTION_KEYS = {};  // key -> question code, for the questions asked on this topic
  var FLAGS = {};
  var CHOOSE_HINT = "";
  var drafts = window.qrelsmithDrafts;
  var clock = window.qrelsmithActiveClock;
  var hits = window.qrelsmithHits;
  var keys = window.qrelsmithJudgeKeys;
  var judgeDrafts = window.qrelsmithJudgeDrafts;
  var status = window.qrelsmithJudgeStatus.show;
  function readScale(root) {
    var blob = root.querySelector("#judge-scale");
    var scale = blob ? JSON.parse(blob.textContent) : {};
    KEY_CHOICES = scale.keys || {};
    QUESTION_KEYS = scale.questions || {};
    FLAGS = scale.flags || {};
    CHOOSE_HINT = scale.hint || "";
  }

  // ---- Page state -----------------------------------------------------------------------
  var page = null; // {root, form, hits, keys, focus, pending, retryTimer, leaveArmedUntil}

  function $(selector, scope) { return (scope || document).querySelector(selector); }
  function $all(selector, scope) { return Array.prototype.slice.call((scope || document).querySelectorAll(selector)); }

  function newToken() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function csrfToken() {
    var input = $("input[name=csrfmiddlewaretoken]", page.form);
    return input ? input.value : "";
  }

  var hitChoice = hits.choice;
  var hitComment = hits.comment;
  var setChoice = hits.setChoice;
  var showHitError = hits.showError;
  function markHit(hit) { hits.mark(hit, FLAGS); }

  // ---- Drafts (judge_drafts.js) ------------------------------------------------------------
  function saveDraft() { if (page) judgeDrafts.save(page); }

  // Which hit the keys act on; the DOM focus stays where it is (Tab moved it there).
  function markFocus(index) {
    page.focus = (index + page.hits.length) % page.hits.length;
    page.hits.forEach(function (hit, i) { hit.classList.toggle("is-focused", i === page.focus); });
  }

  function setFocus(index, scroll) {
    if (!page || !page.hits.length) return;
    markFocus(index);
    var hit = page.hits[page.focus];
    hit.focus({ preventScroll: true });
    if (scroll !== false) hit.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function openThread(which) {
    var scope = which === "topic" ? page.root : page.hits[page.focus];
    var link = scope && $(which === "topic" ? "[data-topic-thread]" : "[data-hit-thread]", scope);
    if (!link) {
      status(which === "topic" ? "The topic's own question is not in the collection: it has no thread here."
        : "This hit has no thread in the collection.", "info");
      return;
    }
    window.open(link.href, "_blank", "noopener,noreferrer");
  }

  function choose(value) {
    var hit = page.hits[page.focus];
    if (!hit) return;
    var radio = $('input[type=radio][value="' + value + '"]', hit);
    if (!radio) return;
    radio.checked = true;
    showHitError(hit, "");
    markHit(hit);
    saveDraft();
    if (FLAGS[value]) {
      $("textarea", hit).focus();  // a flag needs a reason
    } else if (page.hits.length > 1 && page.focus < page.hits.length - 1) {
      setFocus(page.focus + 1);  // formula items: straight on to the next post
    }
  }

  function answer(code) {
    var hit = page.hits[page.focus];
    var box = hit && $('input[data-question="' + code + '"]', hit);
    if (!box) return;
    box.checked = !box.checked;
    markHit(hit);
    saveDraft();
  }

  function isDirty() {
    return page && page.hits.some(function (hit) { return hit.classList.contains("is-dirty"); });
  }

  // ---- Submitting ----------------------------------------------------------------------
  function collect() {
    var verdicts = [];
    var firstBad = null;
    page.hits.forEach(function (hit, i) {
      var choice = hitChoice(hit);
      var comment = hitComment(hit);
      var problem = "";
      if (!choice) problem = CHOOSE_HINT;
      else if (FLAGS[choice] && !comment.trim()) problem = FLAGS[choice] + " needs a comment saying why.";
      showHitError(hit, problem);
      if (problem && firstBad === null) firstBad = i;
      var verdict = { hit: Number(hit.dataset.hit), comment: comment };
      var answers = hits.answersObject(hit);
      if (answers) verdict.answers = answers;
      if (/^\d$/.test(choice)) verdict.grade = Number(choice);
      else verdict.flag = choice;
      verdicts.push(verdict);
    });
    return { verdicts: verdicts, firstBad: firstBad };
  }

  function submit() {
    if (!page || !page.hits.length) return;
    if (page.pending && page.pending.inFlight) return; // a double press sends once
    var collected = collect();
    if (collected.firstBad !== null) {
      setFocus(collected.firstBad);
      var hit = page.hits[collected.firstBad];
      if (hitChoice(hit)) $("textarea", hit).focus();
      status("Not submitted: " + $("[data-error]", hit).textContent, "error");
      return;
    }
    var body = {
      judgments: collected.verdicts,
      active_seconds: clock.seconds(),
      client_token: newToken(),
    };
    page.pending = { body: body, attempt: 0, inFlight: false };
    send();
  }

  function send() {
    var pending = page.pending;
    if (!pending) return;
    clearTimeout(page.retryTimer);
    pending.inFlight = true;
    var button = $(".submit-btn", page.form);
    if (button) button.disabled = true;
    status("Saving…", "busy");
    var current = page;
    fetch(page.form.dataset.api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
      body: JSON.stringify(pending.body),
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        return { response: response, data: data };
      });
    }).then(function (result) {
      if (current !== page) return;
      pending.inFlight = false;
      if (button) button.disabled = false;
      var code = result.response.status;
      if (result.response.ok) return saved(result.data);
      page.pending = null;
      if (code === 400) return refused(result.data);
      if (code === 403) {
        status("Not saved: your session has ended. Log in again in another tab, then press Enter.", "error");
        return;
      }
      if (code === 404) { itemTakenAway(); return; }
      page.pending = pending;
      retryLater("the server answered " + code);
    }).catch(function () {
      if (current !== page) return;
      pending.inFlight = false;
      if (button) button.disabled = false;
      retryLater("no connection");
    });
  }

  function retryLater(reason) {
    var pending = page.pending;
    var delay = RETRY_DELAYS_MS[Math.min(pending.attempt, RETRY_DELAYS_MS.length - 1)];
    pending.attempt += 1;
    status("Not saved yet (" + reason + "). Your choices are kept; retrying in " + Math.round(delay / 1000) + " s…",
      "error", { label: "Retry now", run: send });
    page.retryTimer = setTimeout(send, delay);
  }

  function refused(data) {
    var problems = (data && data.problems) || {};
    var first = null;
    page.hits.forEach(function (hit, i) {
      var text = problems[hit.dataset.hit];
      showHitError(hit, text || "");
      if (text && first === null) first = i;
    });
    if (first !== null) setFocus(first);
    var general = problems["0"] || (data && data.detail) || "Please check the marked hits.";
    status("Not submitted: " + (first !== null ? "please check the marked hits." : general), "error");
  }

  function applyJudgments(judgments, force) {
    judgments.forEach(function (j) {
      var hit = $('.hit[data-hit="' + j.hit + '"]', page.root);
      if (!hit) return;
      if (!force && hit.classList.contains("is-dirty")) return; // never overwrite unsaved work
      hits.apply(hit, j, FLAGS);
    });
  }

  function updateProgress(data) {
    if (typeof data.judged_hits !== "number") return;
    var judged = $("[data-judged]", page.root);
    if (judged) judged.textContent = data.judged_hits;
    var items = $("[data-judged-items]", page.root);
    if (items && typeof data.judged_items === "number") items.textContent = data.judged_items;
    var bar = $("[data-progress]", page.root);
    if (bar) bar.value = data.judged_hits;
    var text = $("[data-progress-text]", page.root);
    var box = $(".topic-progress", page.root);  // its tooltip tells the same counts
    if (box && text) box.title = "Judged in this topic: " + text.textContent.replace(/ judged$/, "");
  }

  // The organizer took the item out of the assignment's scope (or revoked it): nothing was
  // stored. The header's counts are re-read from the assignment, as the item list would now
  // count them, without reloading: the other items' drafts live in storage and the choices on
  // this page stay on screen, so nothing typed is lost.
  function itemTakenAway() {
    var gone = "Not saved: this item is no longer yours to judge.";
    status(gone, "error");
    var current = page;
    fetch(page.form.dataset.assignmentApi, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data || current !== page) return;
        updateTotals(data);
        updateProgress(data);
        // This item is no longer among them: it has no place to show ("Answer – of 2").
        var position = $("[data-position]", page.root);
        if (position) position.textContent = "–";
        retitle(data.total_items);
        if (data.closed) status(gone + " Every item was taken out of this assignment: nothing is left to judge.", "error");
      })
      .catch(function () { /* offline: the counts stay as they were */ });
  }

  // The totals are the text after each live count: "<b data-judged>1</b> of 4 answers judged",
  // "Answer <b data-position>3</b> of 4". A unit word follows the count as the server writes it
  // (assessment.selectors.progress.Progress: singular for exactly one); the words are the
  // progress text's data-item/-items/-hit/-hits, the task's own units.
  function setTotalAfter(selector, total, words) {
    var count = $(selector, page.root);
    var text = count && count.nextSibling;
    if (typeof total !== "number" || !text || text.nodeType !== Node.TEXT_NODE) return;
    var told = " of " + total;
    if (words) told += " " + (total === 1 ? words[0] : words[1]);
    text.textContent = text.textContent.replace(words ? /^ of \d+ \S+/ : /^ of \d+/, told);
  }

  function updateTotals(data) {
    var units = $("[data-progress-text]", page.root);
    var unit = units ? units.dataset : {};
    setTotalAfter("[data-judged]", data.total_hits, unit.hit && [unit.hit, unit.hits]);
    setTotalAfter("[data-judged-items]", data.total_items, unit.item && [unit.item, unit.items]);
    setTotalAfter("[data-position]", data.total_items);
    var bar = $("[data-progress]", page.root);
    if (bar && typeof data.total_hits === "number") bar.max = Math.max(data.total_hits, 1);
  }

  // The tab's title says where the page is, like the counter: "T1 · answer – of 2 · qrelsmith".
  function retitle(total) {
    var head = page.root.dataset.titleHead;
    var title = page.root.dataset.title || "";
    if (!head || title.indexOf(head) !== 0 || typeof total !== "number") return;
    var tail = title.slice(head.length).replace(/^ \S+ of \d+/, "");
    page.root.dataset.title = document.title = head + " – of " + total + tail;
  }

  function saved(data) {
    page.pending = null;
    clock.reset();
    applyJudgments(data.judgments || [], true);
    judgeDrafts.clear(page);
    updateProgress(data);
    var next = data.next_unjudged_url;
    if (next) {
      status("Saved ✓ — on to the next unjudged item", "saved");
      go(next, true);
    } else {
      status("Saved ✓ — every item of this topic is judged. Thank you!", "saved");
      setTimeout(function () { window.location.assign(page.form.dataset.itemsUrl); }, 900);
    }
  }

  // ---- Reading the latest (second tab) -------------------------------------------------
  function refresh() {
    if (!page || (page.pending && page.pending.inFlight)) return;
    var current = page;
    fetch(page.form.dataset.api, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (data && current === page) { applyJudgments(data.judgments || [], false); updateProgress(data); }
      })
      .catch(function () { /* offline: the page keeps what it has */ });
  }
  // The clock (active_clock.js) takes its own note of the tab being hidden or shown.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });

  // ---- Moving between items without reloading -----------------------------------------
  function go(url, push) {
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        // A budgeted pool's next item is asked of /assess/<assignment>/, which redirects to
        // the item the strategy chose: the page landed on is the one to show and remember.
        var landed = new URL(response.url).pathname;
        var asked = new URL(url, location.href).pathname;
        if (!response.ok || (landed !== asked && !(response.redirected && /^\/assess\/\d+\/\d+\/$/.test(landed)))) {
          throw new Error("not a judging page");
        }
        url = response.url;
        return response.text();
      })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.getElementById("judge-app");
        if (!fresh || !page) throw new Error("not a judging page");
        clearTimeout(page.retryTimer);
        var node = document.importNode(fresh, true);
        page.root.replaceWith(node);
        if (push) history.pushState({ judge: true }, "", url);
        document.title = node.dataset.title || document.title;
        window.scrollTo(0, 0);
        clock.reset();
        init(node);
        if (window.qrelsmithTypeset) window.qrelsmithTypeset(node);
      })
      .catch(function () { window.location.assign(url); });
  }

  function leave(direction) {
    if (page.pending) {  // never drop a submit that has not reached the server yet
      status("Still saving this item. It keeps retrying; you can move on once it says Saved.", "error",
        { label: "Retry now", run: send });
      return;
    }
    var link = $('[data-nav="' + direction + '"]', page.root);
    if (!link) { status(direction === "next" ? "This is the last item." : "This is the first item.", "info"); return; }
    if (isDirty() && !(page.leaveArmedUntil > Date.now())) {
      page.leaveArmedUntil = Date.now() + 4000;
      status("Unsaved changes here. Enter submits them; press " + (direction === "next" ? "→" : "←") +
        " again to leave them" + (drafts.available ? " (kept as a draft on this computer)." : "."), "error");
      return;
    }
    go(link.href, true);
  }

  window.addEventListener("popstate", function () { if (page) go(location.href, false); });
  // A draft survives a reload; without storage, unsaved work would not.
  window.addEventListener("beforeunload", function (event) {
    if (!drafts.available && (isDirty() || (page && page.pending))) { event.preventDefault(); event.returnValue = ""; }
  });

  // ---- Keyboard (judge_keys.js) ------------------------------------------------------------
  function toggle(id) { keys.toggle(id, page.root); }
  keys.listen(function () { return page; }, {
    choose: choose, answer: answer, setFocus: setFocus, openThread: openThread, submit: submit, leave: leave,
  });

  // ---- Wiring a page -------------------------------------------------------------------
  function init(root) {
    var form = $("#judge-form", root);
    if (!form) return;
    readScale(root);
    page = {
      root: root, form: form, hits: $all(".hit", form), keys: KEY_CHOICES, questionKeys: QUESTION_KEYS, focus: 0,
      pending: null, retryTimer: null,
    };
    page.hits.forEach(function (hit, i) {
      hit.dataset.comment = hitComment(hit).trim();
      markHit(hit);
      hit.addEventListener("mousedown", function (event) {
        if (event.target.tagName !== "TEXTAREA") setFocus(i, false);
      });
      hit.addEventListener("focusin", function () { markFocus(i); });
      hit.addEventListener("change", function () { showHitError(hit, ""); markHit(hit); saveDraft(); });
      hit.addEventListener("input", function () { markHit(hit); saveDraft(); });
      $all("input[type=radio]", hit).forEach(function (radio) {
        radio.addEventListener("change", function () {
          if (FLAGS[radio.value]) $("textarea", hit).focus();
          else setFocus(i, false);
        });
      });
    });
    form.addEventListener("submit", function (event) { event.preventDefault(); submit(); });
    $all("[data-toggle]", root).forEach(function (button) {
      button.addEventListener("click", function () { toggle(button.dataset.toggle); });
    });
    $all("[data-nav]", root).forEach(function (link) {
      link.addEventListener("click", function (event) { event.preventDefault(); leave(link.dataset.nav); });
    });
    judgeDrafts.restore(page, FLAGS, status);
    var firstOpen = page.hits.findIndex(function (hit) { return !hitChoice(hit); });
    setFocus(firstOpen >= 0 ? firstOpen : 0, false);
    document.body.classList.add("judge-js");
    // Page add-ons (highlight.js) set up each item the page shows, swapped in or not.
    document.dispatchEvent(new CustomEvent("judge:page", { detail: { root: root } }));
  }

  function start() {
    var root = document.getElementById("judge-app");
    drafts.purgeOld();
    if (root) init(root);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
