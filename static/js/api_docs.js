// /api/docs/ (templates/api/docs.html), loaded before Redoc's bundle.
//
// Redoc draws a "Powered by Redocly" logo from its CDN (https://cdn.redoc.ly/...), a request
// the Content-Security-Policy refuses (img-src is our own origin) and an outside request the
// docs must never make. Redoc has no option to leave it out, so its address is emptied when
// Redoc sets it: an <img> with an empty src fails at once without any request, and Redoc then
// removes the image itself (its onError handler). Any other image is left alone.
(function () {
  "use strict";
  var CDN = "https://cdn.redoc.ly/";
  function fromCdn(element, name, value) {
    return element instanceof HTMLImageElement && name === "src" && String(value).indexOf(CDN) === 0;
  }
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    return setAttribute.call(this, name, fromCdn(this, name, value) ? "" : value);
  };
  var src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    configurable: true,
    enumerable: src.enumerable,
    get: src.get,
    set: function (value) {
      src.set.call(this, fromCdn(this, "src", value) ? "" : value);
    },
  });
})();
