/* The nugget editor: keyboard first. The list lives on the server; every change is one POST to
   the topic's nuggets endpoint, which answers with the whole list (so what is shown is what is
   stored). Selecting text in a document proposes it as a new nugget. */
(function () {
  "use strict";
  var app = document.getElementById("nugget-app");
  if (!app) return;
  var api = app.getAttribute("data-api");
  var nuggets = JSON.parse(document.getElementById("nugget-data").textContent);
  var proposals = JSON.parse(document.getElementById("proposal-data").textContent);
  var list = document.getElementById("nugget-list");
  var plist = document.getElementById("proposal-list");
  var pbox = document.getElementById("proposal-box");
  var status = document.getElementById("nugget-status");
  var text = document.getElementById("nugget-text");
  var vital = document.getElementById("nugget-vital");
  var docs = document.querySelector(".documents");
  var selected = 0;
  var marked = {};
  var editing = null;

  function csrf() {
    return document.querySelector("#nugget-csrf input[name=csrfmiddlewaretoken]").value;
  }

  function say(message, isError) {
    status.textContent = message;
    status.classList.toggle("is-error", !!isError);
  }

  function rows() {
    return nuggets.map(function (n) { return { kind: "nugget", item: n }; }).concat(
      proposals.map(function (p) { return { kind: "proposal", item: p }; }));
  }

  function send(body, done) {
    return fetch(api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), Accept: "application/json" },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (data) {
        if (!response.ok) {
          say(data.detail || "Not saved: " + JSON.stringify(data), true);
          return;
        }
        nuggets = data.nuggets;
        if (done) done();
        render();
        say("Saved (" + body.action.replace("_", " ") + ").", false);
      });
    }).catch(function () { say("Not saved: the server could not be reached.", true); });
  }

  function badge(importance) {
    var b = document.createElement("span");
    b.className = "importance " + importance;
    b.textContent = importance;
    return b;
  }

  function item(row, index) {
    var li = document.createElement("li");
    li.className = "nugget-row " + row.kind;
    if (index === selected) { li.classList.add("is-selected"); li.setAttribute("aria-current", "true"); }
    if (row.kind === "nugget" && marked[row.item.id]) li.classList.add("is-marked");
    li.appendChild(badge(row.item.importance));
    if (editing === index) {
      var input = document.createElement("textarea");
      input.className = "nugget-edit";
      input.rows = 2;
      input.maxLength = 2000;
      input.value = row.item.text;
      input.setAttribute("aria-label", "Edit the nugget's text");
      li.appendChild(input);
    } else {
      var span = document.createElement("span");
      span.className = "nugget-text";
      span.textContent = row.item.text;
      li.appendChild(span);
    }
    if (row.kind === "nugget" && row.item.origin === "machine") {
      var m = document.createElement("span");
      m.className = "origin";
      m.textContent = "machine";
      li.appendChild(m);
    }
    if (row.kind === "proposal") {
      var prov = document.createElement("span");
      prov.className = "origin";
      prov.textContent = row.item.provenance;
      li.appendChild(prov);
    }
    li.addEventListener("click", function () { selected = index; render(); });
    return li;
  }

  function render() {
    var all = rows();
    if (selected >= all.length) selected = Math.max(0, all.length - 1);
    list.replaceChildren();
    plist.replaceChildren();
    all.forEach(function (row, index) {
      (row.kind === "nugget" ? list : plist).appendChild(item(row, index));
    });
    pbox.hidden = proposals.length === 0;
    var input = document.querySelector(".nugget-edit");
    if (input) { input.focus(); input.select(); }
  }

  function current() { return rows()[selected]; }

  function dropProposal(id) {
    return function () { proposals = proposals.filter(function (p) { return p.id !== id; }); };
  }

  function saveEdit(input) {
    var row = current();
    editing = null;
    if (!row) { render(); return; }
    if (row.kind === "nugget") {
      send({ action: "edit", nugget: row.item.id, text: input.value });
    } else {
      send({ action: "edit_proposal", proposal: row.item.id, text: input.value,
             importance: row.item.importance }, dropProposal(row.item.id));
    }
  }

  document.getElementById("nugget-add").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!text.value.trim()) { say("Write or select the nugget's text first.", true); return; }
    send({ action: "add", text: text.value, importance: vital.checked ? "vital" : "okay" }, function () {
      text.value = "";
      vital.checked = false;
      text.blur();  // back to the list's keys: the new nugget is selected
      selected = nuggets.length - 1;
    });
  });

  function propose(focus) {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !docs.contains(selection.anchorNode)) return;
    var chosen = selection.toString().replace(/\s+/g, " ").trim().slice(0, 2000);
    if (!chosen) return;
    text.value = chosen;
    say("Selected text proposed as a nugget: press a, then Enter to add it.", false);
    if (focus) text.focus();
  }
  docs.addEventListener("mouseup", function () { propose(true); });
  document.addEventListener("selectionchange", function () { propose(false); });

  function onTextKeys(event) {
    var target = event.target;
    if (event.key === "Escape") { editing = null; target.blur(); render(); return true; }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      if (target === text) document.getElementById("nugget-add").requestSubmit();
      else if (target.classList.contains("nugget-edit")) saveEdit(target);
      return true;
    }
    return true;
  }

  function move(row, by) {
    var to = selected + by;
    if (to < 0 || to >= nuggets.length) return;
    send({ action: "move", nugget: row.item.id, position: to }, function () { selected = to; });
  }

  var actions = {
    j: function () { selected = Math.min(selected + 1, rows().length - 1); render(); },
    k: function () { selected = Math.max(selected - 1, 0); render(); },
    a: function () { text.focus(); },
    e: function () { if (current()) { editing = selected; render(); } },
    v: function (row) {
      if (row && row.kind === "nugget") {
        send({ action: "edit", nugget: row.item.id,
               importance: row.item.importance === "vital" ? "okay" : "vital" });
      } else if (row) {
        row.item.importance = row.item.importance === "vital" ? "okay" : "vital";
        render();
      }
    },
    J: function (row) { if (row && row.kind === "nugget") move(row, 1); },
    K: function (row) { if (row && row.kind === "nugget") move(row, -1); },
    x: function (row) {
      if (row && row.kind === "nugget") { marked[row.item.id] = !marked[row.item.id]; render(); }
    },
    m: function () {
      var ids = nuggets.filter(function (n) { return marked[n.id]; }).map(function (n) { return n.id; });
      if (ids.length < 2) { say("Mark two nuggets or more with x, then press m.", true); return; }
      send({ action: "merge", nuggets: ids }, function () { marked = {}; });
    },
    Delete: function (row) {
      if (row && row.kind === "nugget") send({ action: "delete", nugget: row.item.id });
    },
    y: function (row) {
      if (row && row.kind === "proposal") {
        send({ action: "accept", proposal: row.item.id, importance: row.item.importance },
             dropProposal(row.item.id));
      }
    },
    n: function (row) {
      if (row && row.kind === "proposal") send({ action: "reject", proposal: row.item.id }, dropProposal(row.item.id));
    }
  };
  actions.Backspace = actions.Delete;

  document.addEventListener("keydown", function (event) {
    var tag = event.target.tagName;
    if (tag === "TEXTAREA" || tag === "INPUT") { onTextKeys(event); return; }
    if (tag === "SELECT") return; // letters pick an endpoint there
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action(current());
  });

  render();
})();
