/* Gatehouse Console — progressive enhancement only. Every console page works without this file.
   (gatehouse.js also runs here: error-summary focus, Show/Hide password, [data-copy] for mail codes.) */
(function () {
  "use strict";

  function copy(value, onDone, fallbackEl) {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(onDone, function () { select(fallbackEl); });
    } else {
      select(fallbackEl);
      try { if (document.execCommand("copy")) onDone(); } catch (e) { /* leave the text selected */ }
    }
  }

  function select(el) {
    if (!el) return;
    if (typeof el.select === "function") {
      el.focus();
      el.select();
      return;
    }
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function flash(btn, label) {
    var original = btn.getAttribute("data-label") || btn.textContent;
    btn.setAttribute("data-label", original);
    if (btn.classList.contains("btn-icon")) {
      btn.classList.add("is-done");
    } else {
      btn.textContent = label;
    }
    status(label);
    setTimeout(function () {
      btn.classList.remove("is-done");
      if (!btn.classList.contains("btn-icon")) btn.textContent = original;
    }, 1600);
  }

  // One polite live region for "Copied" announcements.
  var live;
  function status(text) {
    if (!live) {
      live = document.createElement("p");
      live.className = "visually-hidden";
      live.setAttribute("role", "status");
      document.body.appendChild(live);
    }
    live.textContent = "";
    setTimeout(function () { live.textContent = text; }, 30);
  }

  // 1. Copy the value of a read-only input: API token, generated password.
  document.querySelectorAll("[data-copy-target]").forEach(function (btn) {
    var input = document.getElementById(btn.getAttribute("data-copy-target"));
    if (!input) return;
    btn.hidden = false;
    input.addEventListener("focus", function () { input.select(); });
    btn.addEventListener("click", function () {
      copy(input.value, function () { flash(btn, "Copied"); }, input);
    });
  });

  // 2. Copy the text of an element: user ID.
  document.querySelectorAll("[data-copy-text]").forEach(function (btn) {
    var el = document.getElementById(btn.getAttribute("data-copy-text"));
    if (!el) return;
    btn.hidden = false;
    btn.addEventListener("click", function () {
      copy(el.textContent.trim(), function () { flash(btn, "Copied"); }, el);
    });
  });

  // 3. Asking before destructive actions (form[data-confirm]) is gatehouse.js's, for every page.

  // 4. Typed confirmations: keep the delete button inert until the text matches.
  //    data-confirm-match="literal" or data-confirm-match-field="id-of-other-input".
  document.querySelectorAll("[data-confirm-match], [data-confirm-match-field]").forEach(function (input) {
    var form = input.form;
    var button = form && form.querySelector("[data-confirm-button]");
    if (!button) return;
    var other = input.hasAttribute("data-confirm-match-field")
      ? document.getElementById(input.getAttribute("data-confirm-match-field"))
      : null;
    function expected() {
      return other ? other.value.trim() : input.getAttribute("data-confirm-match");
    }
    function update() {
      var ok = expected() !== "" && input.value.trim() === expected();
      if (ok) button.removeAttribute("aria-disabled");
      else button.setAttribute("aria-disabled", "true");
    }
    input.addEventListener("input", update);
    if (other) other.addEventListener("input", update);
    form.addEventListener("submit", function (event) {
      if (button.getAttribute("aria-disabled") === "true") {
        event.preventDefault();
        event.stopImmediatePropagation();
        input.focus();
      }
    }, true);
    update();
  });

  // 5. Long-running forms (seed, import): show progress and ignore a second submit.
  document.querySelectorAll("form[data-busy]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    if (!button) return;
    var label = button.textContent;
    var busy = false;
    form.addEventListener("submit", function (event) {
      if (event.defaultPrevented) return;
      if (busy) { event.preventDefault(); return; }
      busy = true;
      button.setAttribute("aria-disabled", "true");
      button.textContent = form.getAttribute("data-busy");
    });
    // Coming back with the Back button restores the page from cache: make the form usable again.
    window.addEventListener("pageshow", function () {
      busy = false;
      button.removeAttribute("aria-disabled");
      button.textContent = label;
    });
  });
  // An app's settings: the hosted-page preview follows the fields as they are typed, and a colour
  // picker fills the accent field (which stays the one that is sent).
  var appForm = document.querySelector("form[data-app-edit]");
  if (appForm) {
    var previewTimer;
    var refreshPreview = function () {
      var params = new URLSearchParams();
      ["name", "logoURL", "accentColor", "termsURL", "privacyURL"].forEach(function (name) {
        var value = appForm.elements[name] ? appForm.elements[name].value.trim() : "";
        if (value) params.set(name, value);
      });
      document.querySelectorAll("iframe[data-app-preview]").forEach(function (frame) {
        frame.src = "/_/app-preview?" + params.toString();
      });
    };
    appForm.addEventListener("input", function () {
      clearTimeout(previewTimer);
      previewTimer = setTimeout(refreshPreview, 300);
    });
    document.querySelectorAll("input[data-color-for]").forEach(function (picker) {
      var text = document.getElementById(picker.getAttribute("data-color-for"));
      if (!text) return;
      var sync = function () { if (/^#[0-9a-fA-F]{6}$/.test(text.value.trim())) picker.value = text.value.trim().toLowerCase(); };
      sync();
      picker.hidden = false;
      picker.addEventListener("input", function () {
        text.value = picker.value;
        text.dispatchEvent(new Event("input", { bubbles: true }));
      });
      text.addEventListener("input", sync);
    });
  }

  // 8. The sign-in chart's days at the viewer's own midnights (the server draws UTC's): a line at
  //    each, and each day's label under its middle when there is room (SignInChart.swift).
  document.querySelectorAll("svg .chart-days[data-start]").forEach(function (group) {
    var number = function (name) { return Number(group.getAttribute("data-" + name)); };
    var start = number("start") * 1000, hour = number("hour"), plotWidth = hour * 7 * 24;
    var svgNS = "http://www.w3.org/2000/svg";
    var x = function (time) { return (time - start) / 3600000 * hour; };
    var midnight = new Date(start);
    midnight.setHours(24, 0, 0, 0);
    var edges = [0];
    while (x(midnight.getTime()) < plotWidth) {
      edges.push(x(midnight.getTime()));
      midnight.setDate(midnight.getDate() + 1);
    }
    edges.push(plotWidth);
    while (group.firstChild) group.removeChild(group.firstChild);
    edges.slice(1, -1).forEach(function (at) {
      var line = document.createElementNS(svgNS, "line");
      [["class", "chart-grid"], ["x1", at], ["x2", at], ["y1", number("top")], ["y2", number("bottom")]].forEach(function (pair) {
        line.setAttribute(pair[0], pair[1]);
      });
      group.appendChild(line);
    });
    for (var i = 1; i < edges.length; i++) {
      if (edges[i] - edges[i - 1] < number("narrowest")) continue;
      var middle = (edges[i] + edges[i - 1]) / 2;
      var label = document.createElementNS(svgNS, "text");
      label.setAttribute("class", "chart-label");
      label.setAttribute("x", middle);
      label.setAttribute("y", number("baseline"));
      label.setAttribute("text-anchor", "middle");
      label.textContent = new Date(start + middle / hour * 3600000)
        .toLocaleDateString("en-GB", { weekday: "short", day: "numeric" });
      group.appendChild(label);
    }
    group.setAttribute("data-zone", Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
})();
