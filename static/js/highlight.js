// Query terms highlighted in the document being judged, beside judge.js.
//
// - The terms are the page's #query-terms JSON (collection/core/query_terms.py: the topic title's
//   words without stopwords). Each occurrence in the document's title and body ([data-highlight])
//   is wrapped in <mark class="term"> by splitting text nodes with DOM calls: the document's
//   text is never parsed as HTML here. A term also matches with a plural ending (s / es), and
//   a plural term without its final s.
// - Keys (assessment.core.guidelines.RESERVED_KEYS keeps grade scales off them): x turns the
//   highlighting on or off (remembered in this browser), . and , jump to the next and
//   previous match (shown even with highlighting off), ↓ ↑ Space PageDown PageUp scroll the
//   document inside its pane.
// - judge.js swaps in the next item without reloading and then fires "judge:page"; the new
//   item is highlighted the same way.
(function () {
  "use strict";

  var STORE_KEY = "qrelsmith.highlight";
  var MAX_MARKS = 5000;  // a 200,000-character document full of one term stays responsive
  var LINE_PX = 48;
  var view = { root: null, reader: null, marks: [], current: -1 };

  function highlightOn() {
    try { return window.localStorage.getItem(STORE_KEY) !== "off"; } catch (error) { return true; }
  }
  function rememberOn(on) {
    try { window.localStorage.setItem(STORE_KEY, on ? "on" : "off"); } catch (error) { /* kept for this page */ }
  }

  function escapeRegExp(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  // One pattern for every term, longest first; letters or digits may not touch a match. A
  // plural term ("achievements") also finds its singular: it is tried without its final s.
  function termPattern(terms) {
    var words = [];
    terms.forEach(function (term) {
      if (typeof term !== "string" || term.length < 2) return;
      words.push(term);
      if (term.length > 3 && /[^s]s$/.test(term)) words.push(term.slice(0, -1));
    });
    words = words.sort(function (a, b) { return b.length - a.length; }).map(escapeRegExp);
    if (!words.length) return null;
    return new RegExp("(?<![\\p{L}\\p{N}])(?:" + words.join("|") + ")(?:e?s)?(?![\\p{L}\\p{N}])", "giu");
  }

  function readTerms(root) {
    var blob = root.querySelector("#query-terms") || document.getElementById("query-terms");
    if (!blob) return [];
    try {
      var terms = JSON.parse(blob.textContent);
      return Array.isArray(terms) ? terms : [];
    } catch (error) {
      return [];
    }
  }

  function textNodes(container) {
    var walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        return node.nodeValue.trim() && !(node.parentNode && node.parentNode.closest("mark"))
          ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT;
      },
    });
    var nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    return nodes;
  }

  // Splits each text node around its matches: text, <mark>match</mark>, text, ...
  function wrapMatches(container, pattern, marks) {
    textNodes(container).forEach(function (node) {
      if (marks.length >= MAX_MARKS) return;
      var text = node.nodeValue;
      var pieces = null;
      var last = 0;
      var match;
      pattern.lastIndex = 0;
      while ((match = pattern.exec(text)) !== null && marks.length < MAX_MARKS) {
        pieces = pieces || document.createDocumentFragment();
        if (match.index > last) pieces.appendChild(document.createTextNode(text.slice(last, match.index)));
        var mark = document.createElement("mark");
        mark.className = "term";
        mark.textContent = match[0];
        pieces.appendChild(mark);
        marks.push(mark);
        last = match.index + match[0].length;
      }
      if (!pieces) return;
      if (last < text.length) pieces.appendChild(document.createTextNode(text.slice(last)));
      node.parentNode.replaceChild(pieces, node);
    });
  }

  function showCount() {
    var box = view.root && view.root.querySelector("[data-matches]");
    if (!box) return;
    var total = view.marks.length;
    var off = view.reader && view.reader.classList.contains("terms-off");
    if (!total) {
      box.textContent = "no query words in this document";
    } else if (view.current >= 0) {
      box.textContent = "match " + (view.current + 1) + " of " + total + (off ? " · highlighting off" : "");
    } else {
      box.textContent = total + (total === 1 ? " match" : " matches") + (off ? " · highlighting off" : "") +
        " · press . to go through them";
    }
  }

  function setup(root) {
    if (!root || root === view.root) return;
    var reader = root.querySelector("[data-doc-reader]");
    view = { root: root, reader: reader, marks: [], current: -1 };
    if (!reader) return;
    var pattern = termPattern(readTerms(root));
    if (pattern) {
      Array.prototype.forEach.call(reader.querySelectorAll("[data-highlight]"), function (part) {
        wrapMatches(part, pattern, view.marks);
      });
    }
    reader.classList.toggle("terms-off", !highlightOn());
    showCount();
  }

  function toggle() {
    if (!view.reader) return;
    var on = view.reader.classList.toggle("terms-off") === false;
    rememberOn(on);
    showCount();
  }

  // Scrolls the document (not the page) so the match sits in the middle of the pane; on a
  // narrow screen, where the document is not a scroll box, the page scrolls instead.
  function reveal(mark) {
    var reader = view.reader;
    if (reader.scrollHeight <= reader.clientHeight) {
      var box = mark.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) mark.scrollIntoView({ block: "center" });
      return;
    }
    var offset = mark.getBoundingClientRect().top - reader.getBoundingClientRect().top;
    reader.scrollTop += offset - reader.clientHeight / 2;
  }

  function jump(step) {
    var total = view.marks.length;
    if (!total) { showCount(); return; }
    if (view.current >= 0) view.marks[view.current].classList.remove("is-current");
    view.current = view.current < 0 ? (step > 0 ? 0 : total - 1) : (view.current + step + total) % total;
    var mark = view.marks[view.current];
    mark.classList.add("is-current");
    reveal(mark);
    showCount();
  }

  function scrollReader(key, shift) {
    var reader = view.reader;
    var page = reader.clientHeight * 0.9;
    var by = { ArrowDown: LINE_PX, ArrowUp: -LINE_PX, PageDown: page, PageUp: -page, " ": shift ? -page : page }[key];
    reader.scrollTop += by;
  }

  // Typing goes to text fields; scroll keys keep their meaning on controls (a radio group's
  // arrows, a button's Space).
  var CONTROLS = { INPUT: 1, SELECT: 1, BUTTON: 1, A: 1, SUMMARY: 1 };
  var SCROLL_KEYS = { ArrowDown: 1, ArrowUp: 1, PageDown: 1, PageUp: 1, " ": 1 };
  document.addEventListener("keydown", function (event) {
    if (!view.reader || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var typing = target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && target.type !== "radio" && target.type !== "checkbox");
    if (typing) return;
    var key = event.key;
    if (key === "x" || key === "X") { event.preventDefault(); toggle(); }
    else if (key === ".") { event.preventDefault(); jump(1); }
    else if (key === ",") { event.preventDefault(); jump(-1); }
    else if (SCROLL_KEYS[key] && !CONTROLS[target.tagName] &&
             view.reader.scrollHeight > view.reader.clientHeight) {  // else the page scrolls
      event.preventDefault();
      scrollReader(key, event.shiftKey);
    }
  });

  document.addEventListener("judge:page", function (event) { setup(event.detail && event.detail.root); });

  function start() { setup(document.getElementById("judge-app") || document.getElementById("adjudicate-app")); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
