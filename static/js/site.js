// Behaviour every page shares, wired with data-* attributes: the Content-Security-Policy
// (config/settings/base.py) allows no inline script, no on*= handler and no style attribute.
// Loaded by base.html on every page.
//
// - data-percent="37" on a bar's fill sets its width to 37% (clamped to 0..100).
// - data-grow="5" sets flex-grow (stacked bars of counts).
// - data-share="0.25" sets the CSS variable --share (heat-map cells), clamped to 0..1.
// - <select data-autosubmit> submits its form when changed.
// Values are numbers only, set through the CSSOM: nothing here can turn page text into CSS.
// Content swapped in later (the judging page moves between items without reloading) is
// sized as it arrives.
(function () {
  "use strict";

  function number(value, low, high) {
    var n = parseFloat(value);
    if (!isFinite(n)) return null;
    if (low !== undefined) n = Math.max(low, n);
    if (high !== undefined) n = Math.min(high, n);
    return n;
  }

  function size(element) {
    var d = element.dataset;
    var value;
    if (d.percent !== undefined && (value = number(d.percent, 0, 100)) !== null) {
      element.style.width = value + "%";
    }
    if (d.grow !== undefined && (value = number(d.grow, 0)) !== null) {
      element.style.flexGrow = String(value);
    }
    if (d.share !== undefined && (value = number(d.share, 0, 1)) !== null) {
      element.style.setProperty("--share", String(value));
    }
  }

  var SIZED = "[data-percent], [data-grow], [data-share]";

  function sizeAll(root) {
    if (root.nodeType !== 1) return;
    if (root.matches(SIZED)) size(root);
    root.querySelectorAll(SIZED).forEach(size);
  }

  function start() {
    sizeAll(document.body);
    new MutationObserver(function (records) {
      records.forEach(function (record) {
        record.addedNodes.forEach(sizeAll);
        if (record.type === "attributes") size(record.target);
      });
    }).observe(document.body, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ["data-percent", "data-grow", "data-share"],
    });
  }

  document.addEventListener("change", function (event) {
    var field = event.target;
    if (field.matches && field.matches("select[data-autosubmit]") && field.form) {
      if (field.form.requestSubmit) field.form.requestSubmit();
      else field.form.submit();
    }
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
