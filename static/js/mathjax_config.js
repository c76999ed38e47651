// MathJax 3 configuration shared by every page that shows posts or topics.
// Load this file BEFORE {% static 'vendor/mathjax/tex-chtml.js' %} (templates/collection/_mathjax.html).
//
// Only formulas inside post bodies and topic text are typeset: base.html puts the
// "tex2jax_ignore" class on <body>, and MathJax resumes inside elements carrying one of the
// classes below. Mark any container of $...$ text with class="math" (post bodies use
// "post-body"; ARQMath formula spans are "math-container"). Pages that insert content later
// call window.qrelsmithTypeset(element).
//
// The TeX is hostile (participants write Task 3 answers; anyone wrote the collection), so it
// is typeset in safe mode, in two layers:
// 1. The html extension (\href, \class, \style, \cssId) is neither autoloaded nor loadable
//    with \require: those macros stay undefined and show as red text. Assessors never need
//    TeX links (links in posts are handled by the sanitizer, never followed), nor TeX styling
//    beyond colours.
// 2. MathJax's own safe extension (ui/safe) filters every attribute of the typeset math,
//    whatever macro or extension produced it: no URL at all (no link from TeX), no class or
//    id (so nothing the page's CSS or JS acts on: judge-form, judge-grade…), and of inline
//    styles only colours, borders and padding of at most 3em, which cannot position, cover
//    or load anything.
// The Content-Security-Policy (config/settings/base.py) is the third layer.
window.MathJax = {
  loader: {
    load: ["ui/safe"],
  },
  tex: {
    inlineMath: [["$", "$"]],
    displayMath: [["$$", "$$"]],
    processEscapes: true,
    autoload: {
      html: [],
    },
    require: {
      allow: { html: false },
    },
  },
  options: {
    ignoreHtmlClass: "tex2jax_ignore",
    processHtmlClass: "math|post-body|math-container|tex2jax_process",
    safeOptions: {
      allow: {
        URLs: "none",
        classes: "none",
        cssIDs: "none",
        styles: "safe",
      },
      safeProtocols: { http: false, https: false, file: false, javascript: false, data: false },
      // What is left of the safe defaults: color, backgroundColor, border, padding,
      // fontSize (0.707–1.44em), fontStyle, fontWeight. Dropped: cursor (can load a URL),
      // margin (can move a formula over its neighbours), outline and textShadow (can paint
      // outside the formula's box), opacity (can hide text), fontFamily.
      safeStyles: {
        cursor: false,
        margin: false,
        outline: false,
        textShadow: false,
        opacity: false,
        fontFamily: false,
      },
    },
  },
  chtml: {
    // Fonts come with the npm package (served from /static/vendor/mathjax/): never a CDN.
    matchFontHeight: true,
  },
  startup: {
    typeset: true,
    ready: function () {
      window.MathJax.startup.defaultReady();
      styleThroughCssom(window.MathJax.startup.adaptor);
      assistiveCopyWithoutStyles(window.MathJax.startup.document);
    },
  },
};

// MathJax writes a formula's inline style as a style attribute in two places: its safe filter
// (ui/safe) parses the TeX's style on a detached <div style="...">, and CHTML output puts what
// the filter kept (the borders of \bbox and \fcolorbox) on the typeset element. The policy's
// style-src-attr 'none' refuses both: the style is lost and the browser files a violation
// report each time, on every page whose TeX holds one. MathJax's DOM adaptor is where both
// writes go through: a style attribute is handed over through the CSSOM instead
// (element.style.cssText), which the policy does not restrict and which MathJax uses for all
// its other layout. What a formula may style is still decided by the safe filter above.
function styleThroughCssom(adaptor) {
  var setAttribute = adaptor.setAttribute;
  adaptor.setAttribute = function (node, name, value, ns) {
    if (name === "style" && !ns && node.style) {
      node.style.cssText = value;
      return;
    }
    return setAttribute.call(this, node, name, value, ns);
  };
}

// The copy of each formula for screen readers (mjx-assistive-mml) is MathML text that MathJax
// parses back into elements: a style in it would be a style attribute again, refused the same
// way. That copy is never seen, so it is written without styles.
function assistiveCopyWithoutStyles(mathDocument) {
  var visitor = mathDocument.visitor;
  if (!visitor || !visitor.getAttributes) return;
  var getAttributes = visitor.getAttributes;
  visitor.getAttributes = function (node) {
    // Values come escaped (a quote is &quot;), so an attribute ends at the next quote.
    return getAttributes.call(this, node).replace(/ style="[^"]*"/g, "");
  };
}

window.qrelsmithTypeset = function (element) {
  if (window.MathJax && window.MathJax.typesetPromise) {
    return window.MathJax.typesetPromise(element ? [element] : undefined);
  }
  return Promise.resolve();
};
