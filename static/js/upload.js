// Run upload with a progress bar: the same multipart POST the form makes without JavaScript,
// sent with XMLHttpRequest (fetch has no upload progress) and answered in JSON.
(function () {
  "use strict";
  var form = document.getElementById("upload-form");
  if (!form) return;

  // "Data used" is ARQMath's (text, math or both): hidden, and not sent, for document tasks.
  var documentTasks = (form.dataset.documentTasks || "").split(" ").filter(Boolean);
  var taskSelect = form.querySelector("select[name=task]");
  var dataField = form.querySelector(".field-declared_data");
  function showDataUsed() {
    if (!taskSelect || !dataField) return;
    var isDocument = documentTasks.indexOf(taskSelect.value) >= 0;
    dataField.hidden = isDocument;
    dataField.querySelector("select").disabled = isDocument;
  }
  if (taskSelect) taskSelect.addEventListener("change", showDataUsed);
  showDataUsed();

  if (!window.XMLHttpRequest || !window.FormData) return;
  var button = document.getElementById("upload-button");
  var progress = document.getElementById("upload-progress");
  var bar = progress.querySelector(".progress-bar");
  var fill = bar.querySelector("span");
  var label = progress.querySelector(".progress-label");
  var result = document.getElementById("upload-result");

  function setProgress(fraction, text) {
    var percent = Math.round(fraction * 100);
    fill.style.width = percent + "%";
    bar.setAttribute("aria-valuenow", String(percent));
    label.textContent = text;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function renderFieldErrors(fields) {
    var list = el("ul", "warnings");
    Object.keys(fields || {}).forEach(function (name) {
      fields[name].forEach(function (error) { list.appendChild(el("li", "", name + ": " + error.message)); });
    });
    return list;
  }

  function renderProblems(report) {
    var box = document.createDocumentFragment();
    if (report.errors && report.errors.length) {
      var table = el("table", "data problems");
      var head = table.createTHead().insertRow();
      ["Line", "Column", "Problem"].forEach(function (title) { head.appendChild(el("th", "", title)); });
      var body = table.createTBody();
      report.errors.forEach(function (problem) {
        var row = body.insertRow();
        row.appendChild(el("td", "num", problem.line === null ? "—" : String(problem.line)));
        row.appendChild(el("td", "", problem.field || ""));
        row.appendChild(el("td", "", problem.message));
      });
      box.appendChild(table);
      if (report.more_errors) {
        box.appendChild(el("p", "more", "… and " + report.more_errors + " more not listed."));
      }
      if (report.stopped_message) {
        var stopped = report.stopped_message;
        box.appendChild(el("p", "more", stopped.charAt(0).toUpperCase() + stopped.slice(1) + "."));
      }
    }
    return box;
  }

  function showFailure(body) {
    result.textContent = "";
    var panel = el("div", "result result-bad");
    var head = el("p", "result-head");
    head.appendChild(el("strong", "", "Not stored: "));
    head.appendChild(document.createTextNode(body.detail || "the upload failed"));
    panel.appendChild(head);
    if (body.report) panel.appendChild(renderProblems(body.report));
    if (body.fields) panel.appendChild(renderFieldErrors(body.fields));
    result.appendChild(panel);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    // The server refuses a larger upload before reading it (413); say so without sending it.
    var limit = Number(form.dataset.maxBytes || 0);
    var chosen = form.querySelector("input[type=file]");
    var file = chosen && chosen.files && chosen.files[0];
    if (limit && file && file.size > limit) {
      showFailure({ detail: "file: this upload is " + file.size.toLocaleString("en") +
        " bytes, over the limit of " + limit.toLocaleString("en") + " bytes a request (RUN_UPLOAD_MAX_BYTES); nothing was sent" });
      return;
    }
    var xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
    xhr.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) return;
      var done = e.loaded / e.total;
      setProgress(done, done < 1 ? "Uploading " + Math.round(done * 100) + "%" : "Validating…");
    });
    xhr.addEventListener("load", function () {
      button.disabled = false;
      var body;
      try { body = JSON.parse(xhr.responseText); } catch (err) { body = { detail: "unexpected answer (" + xhr.status + ")" }; }
      if (xhr.status === 200 && body.ok) { window.location.assign(body.redirect); return; }
      if (xhr.status === 429 && !body.detail) body = { detail: "too many uploads: try again later" };
      setProgress(0, "");
      progress.hidden = true;
      showFailure(body);
    });
    xhr.addEventListener("error", function () {
      button.disabled = false;
      progress.hidden = true;
      showFailure({ detail: "the connection failed during upload" });
    });
    result.textContent = "";
    progress.hidden = false;
    button.disabled = true;
    setProgress(0, "Uploading 0%");
    xhr.send(new FormData(form));
  });
})();
