/* The labelling page: for the answer on the left, each nugget on the right is marked support
   (s), partial support (p) or no support (n). Each key stores one label at once (a token per
   request, so a retry is harmless); ] and [ wait for what is being saved before moving on. */
(function () {
  "use strict";
  var source = document.getElementById("label-data");
  if (!source) return;
  var data = JSON.parse(source.textContent);
  var list = document.getElementById("label-list");
  var status = document.getElementById("nugget-status");
  var labels = data.labels;
  var saved = {};  // nugget id -> the label the server confirmed
  Object.keys(labels).forEach(function (id) { saved[id] = labels[id]; });
  var NAMES = { support: "Support", partial_support: "Partial", not_support: "No support" };
  var KEYS = { s: "support", p: "partial_support", n: "not_support" };
  var pending = Promise.resolve();
  var selected = 0;
  for (var i = 0; i < data.nuggets.length; i++) {
    if (!labels[String(data.nuggets[i].id)]) { selected = i; break; }
  }

  function csrf() {
    return document.querySelector("#nugget-csrf input[name=csrfmiddlewaretoken]").value;
  }

  function token() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  function say(message, isError) {
    status.textContent = message;
    status.classList.toggle("is-error", !!isError);
  }

  function render() {
    list.replaceChildren();
    data.nuggets.forEach(function (nugget, index) {
      var li = document.createElement("li");
      li.className = "nugget-row";
      if (index === selected) { li.classList.add("is-selected"); li.setAttribute("aria-current", "true"); }
      var badge = document.createElement("span");
      badge.className = "importance " + nugget.importance;
      badge.textContent = nugget.importance;
      var span = document.createElement("span");
      span.className = "nugget-text";
      span.textContent = nugget.text;
      li.append(badge, span);
      var choices = document.createElement("span");
      choices.className = "label-choices";
      Object.keys(NAMES).forEach(function (support) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "label-choice " + support;
        button.textContent = NAMES[support];
        button.setAttribute("aria-pressed", labels[String(nugget.id)] === support ? "true" : "false");
        button.addEventListener("click", function () { selected = index; label(support); });
        choices.appendChild(button);
      });
      li.appendChild(choices);
      list.appendChild(li);
    });
  }

  function label(support) {
    var nugget = data.nuggets[selected];
    if (!nugget) return;
    var body = { answer: data.answer, labels: {}, client_token: token() };
    body.labels[String(nugget.id)] = support;
    labels[String(nugget.id)] = support;
    selected = Math.min(selected + 1, data.nuggets.length - 1);
    render();
    say("Saving…", false);
    pending = pending.then(function () {
      return fetch(data.labels_url, {
        method: "POST",
        credentials: "same-origin",
        keepalive: true,
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), Accept: "application/json" },
        body: JSON.stringify(body)
      }).then(function (response) {
        return response.json().then(function (reply) {
          if (!response.ok) { say(reply.detail || "Not saved.", true); return; }
          Object.keys(reply.labels).forEach(function (id) { saved[id] = reply.labels[id]; });
          var done = data.nuggets.filter(function (n) { return saved[String(n.id)]; }).length;
          say("Saved: " + done + " of " + data.nuggets.length + " nuggets labelled.", false);
        });
      }).catch(function () { say("Not saved: the server could not be reached.", true); });
    });
  }

  function go(which) {
    var link = document.querySelector("[data-nav=" + which + "]");
    if (link) pending.then(function () { window.location.href = link.href; });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = event.target.tagName;
    if (tag === "TEXTAREA" || tag === "INPUT") return;
    if (KEYS[event.key]) { event.preventDefault(); label(KEYS[event.key]); return; }
    if (event.key === "j") { selected = Math.min(selected + 1, data.nuggets.length - 1); render(); }
    else if (event.key === "k") { selected = Math.max(selected - 1, 0); render(); }
    else if (event.key === "]") go("next");
    else if (event.key === "[") go("prev");
    else return;
    event.preventDefault();
  });

  /* The second pass: whether each cited segment supports the sentence citing it. */
  var citeList = document.getElementById("citation-list");
  var cites = data.citations || [];
  var cite = 0;
  var CITE_NAMES = { full: "Full", partial: "Partial", none: "None" };
  var CITE_KEYS = { f: "full", h: "partial", x: "none" };

  function renderCitations() {
    citeList.replaceChildren();
    if (!cites.length) {
      var empty = document.createElement("li");
      empty.className = "muted";
      empty.textContent = "This answer cites nothing.";
      citeList.appendChild(empty);
      return;
    }
    cites.forEach(function (c, index) {
      var li = document.createElement("li");
      li.className = "nugget-row citation-row";
      if (index === cite) li.classList.add("is-selected");
      var what = document.createElement("span");
      what.className = "nugget-text";
      what.textContent = "Sentence " + (c.sentence + 1) + " cites [" + c.number + "] " + c.segment;
      li.appendChild(what);
      var choices = document.createElement("span");
      choices.className = "label-choices";
      Object.keys(CITE_NAMES).forEach(function (support) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "label-choice cite-" + support;
        button.textContent = CITE_NAMES[support];
        button.setAttribute("aria-pressed", c.support === support ? "true" : "false");
        button.addEventListener("click", function () { cite = index; citeLabel(support); });
        choices.appendChild(button);
      });
      li.appendChild(choices);
      citeList.appendChild(li);
    });
  }

  function citeLabel(support) {
    var c = cites[cite];
    if (!c) return;
    c.support = support;
    cite = Math.min(cite + 1, cites.length - 1);
    renderCitations();
    var body = { answer: data.answer, client_token: token(),
                 labels: [{ sentence: c.sentence, segment: c.segment, support: support }] };
    pending = pending.then(function () {
      return fetch(data.citations_url, {
        method: "POST",
        credentials: "same-origin",
        keepalive: true,
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), Accept: "application/json" },
        body: JSON.stringify(body)
      }).then(function (response) {
        return response.json().then(function (reply) {
          say(response.ok ? "Citation saved." : (reply.detail || "Not saved."), !response.ok);
        });
      }).catch(function () { say("Not saved: the server could not be reached.", true); });
    });
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var tag = event.target.tagName;
    if (tag === "TEXTAREA" || tag === "INPUT") return;
    if (CITE_KEYS[event.key]) { event.preventDefault(); citeLabel(CITE_KEYS[event.key]); }
    else if (event.key === ".") { event.preventDefault(); cite = Math.min(cite + 1, cites.length - 1); renderCitations(); }
    else if (event.key === ",") { event.preventDefault(); cite = Math.max(cite - 1, 0); renderCitations(); }
  });

  render();
  renderCitations();
})();
