// Judging drafts kept in this browser's localStorage: one home for where they live and how
// they are read, written and cleared. static/js/judge.js keeps the unsaved choices and
// comments of an item per (user, assignment, item); static/js/session.js clears them all at
// logout, so the next person on a shared computer finds none of them.
(function () {
  "use strict";

  var PREFIX = "qrelsmith.draft.";
  var MAX_AGE_MS = 30 * 24 * 3600 * 1000;

  // Null in private mode or with storage disabled: nothing is kept, and the judging page
  // warns before unloading unsaved work instead.
  var storage = (function () {
    try {
      var probe = PREFIX + "probe";
      window.localStorage.setItem(probe, "1");
      window.localStorage.removeItem(probe);
      return window.localStorage;
    } catch (error) {
      return null;
    }
  })();

  function key(user, assignment, item) {
    if (!storage || !user) return null;
    return PREFIX + user + "." + assignment + "." + item;
  }

  function read(draftKey) {
    if (!draftKey) return null;
    try {
      var draft = JSON.parse(storage.getItem(draftKey) || "null");
      return draft && typeof draft.hits === "object" ? draft : null;
    } catch (error) {
      return null;
    }
  }

  // Keeps ``hits`` (hit id -> what is unsaved), or drops the draft when there are none.
  function write(draftKey, hits) {
    if (!draftKey) return;
    try {
      if (Object.keys(hits).length) storage.setItem(draftKey, JSON.stringify({ saved: Date.now(), hits: hits }));
      else storage.removeItem(draftKey);
    } catch (error) { /* storage full: the page still has it */ }
  }

  function clear(draftKey) {
    if (draftKey) storage.removeItem(draftKey);
  }

  // Removes from ``store`` the drafts for which ``stale(draft)`` holds (every one without it).
  function removeWhere(store, stale) {
    for (var i = store.length - 1; i >= 0; i -= 1) {
      var found = store.key(i);
      if (!found || found.indexOf(PREFIX) !== 0) continue;
      try {
        if (!stale || stale(JSON.parse(store.getItem(found)))) store.removeItem(found);
      } catch (error) {
        store.removeItem(found);
      }
    }
  }

  function purgeOld() {
    if (!storage) return;
    var now = Date.now();
    removeWhere(storage, function (draft) { return !draft || !(now - draft.saved < MAX_AGE_MS); });
  }

  // Straight to localStorage, not through the probe: a storage too full to take the probe
  // still holds drafts that must go.
  function clearAll() {
    try {
      removeWhere(window.localStorage, null);
    } catch (error) { /* no storage: nothing was kept */ }
  }

  window.qrelsmithDrafts = {
    available: !!storage, key: key, read: read, write: write, clear: clear,
    purgeOld: purgeOld, clearAll: clearAll,
  };
})();
