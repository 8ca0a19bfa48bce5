/* kernelclf: the Jupyter widget manager (@jupyter-widgets/html-manager 1.0.x) typesets
 * widget labels with the MathJax 2 call MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]),
 * but the site loads MathJax 3, which has no MathJax.Hub: every page with a widget raised
 * "Cannot read properties of undefined (reading 'Queue')". This keeps a small MathJax.Hub
 * on whatever object window.MathJax is (the configuration object first, then the MathJax 3
 * object that replaces it) and forwards Typeset requests to MathJax 3's typesetPromise.
 * Loaded on every page by Jupyter Book (it includes every .js file of _static). */
(function () {
  "use strict";
  function typeset(elements) {
    var mj = window.MathJax;
    if (!mj) return;
    var run = function () {
      if (typeof mj.typesetPromise === "function") {
        return mj.typesetPromise(elements).catch(function () {});
      }
    };
    if (mj.startup && mj.startup.promise) {
      mj.startup.promise.then(run);
    } else {
      window.setTimeout(function () { typeset(elements); }, 200);
    }
  }
  var hub = {
    Queue: function () {
      var elements = [];
      for (var i = 0; i < arguments.length; i++) {
        var job = arguments[i];
        if (Array.isArray(job) && job[0] === "Typeset") {
          if (job[2]) elements.push(job[2]);
        } else if (typeof job === "function") {
          try { job(); } catch (e) { /* a MathJax 2 callback: nothing to do in MathJax 3 */ }
        }
      }
      if (elements.length) typeset(elements);
    },
    Config: function () {},
    Register: { StartupHook: function () {}, MessageHook: function () {} }
  };
  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      try {
        Object.defineProperty(value, "Hub", { value: hub, enumerable: false, configurable: true });
      } catch (e) { /* frozen object: leave it */ }
    }
    return value;
  }
  var current = withHub(window.MathJax);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true,
      enumerable: true,
      get: function () { return current; },
      set: function (value) { current = withHub(value); }
    });
  } catch (e) { /* window.MathJax is not configurable: nothing more we can do */ }
})();
