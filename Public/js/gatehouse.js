/* Gatehouse — progressive enhancement only. Every page works without this file. */
(function () {
  "use strict";

  // 1. Move focus to the error summary so keyboard and screen-reader users land on it.
  var summary = document.querySelector("[data-error-summary]");
  if (summary) {
    summary.focus();
  }

  // 2. Resend cooldown: tick down data-cooldown seconds, then re-enable the resend button.
  document.querySelectorAll("[data-cooldown]").forEach(function (root) {
    var remaining = parseInt(root.getAttribute("data-cooldown"), 10);
    var button = root.querySelector("[data-resend-button]");
    var text = root.querySelector("[data-cooldown-text]");
    var count = root.querySelector("[data-cooldown-count]");
    if (!button || !(remaining > 0)) return;

    function blockWhileCooling(event) {
      if (button.getAttribute("aria-disabled") === "true") event.preventDefault();
    }
    button.addEventListener("click", blockWhileCooling);

    var timer = setInterval(function () {
      remaining -= 1;
      if (remaining > 0) {
        // Update the number silently; announcing every second is noisy.
        if (count) count.textContent = String(remaining);
        return;
      }
      clearInterval(timer);
      button.removeAttribute("aria-disabled");
      button.classList.remove("is-cooling");
      if (text) text.textContent = "You can request a new one now.";
    }, 1000);
    if (text) text.removeAttribute("aria-live");
  });

  // 2b. Ask before destructive actions (the console's and a person's own). The server never relies on this.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    });
  });

  // 2c. The impersonation banner's time left, in minutes, with the end in the viewer's own clock.
  document.querySelectorAll("[data-ends-at]").forEach(function (span) {
    var ends = new Date(Number(span.getAttribute("data-ends-at")) * 1000);
    var at = ends.toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });
    function tick() {
      var minutes = Math.ceil((ends.getTime() - Date.now()) / 60000);
      span.textContent = minutes > 0 ? minutes + " min left (ends " + at + ")" : "ended at " + at;
    }
    tick();
    setInterval(tick, 30000);
  });

  // 3. Show / hide password.
  document.querySelectorAll("[data-reveal]").forEach(function (btn) {
    var input = document.getElementById(btn.getAttribute("data-reveal"));
    if (!input) return;
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var show = input.type === "password";
      input.type = show ? "text" : "password";
      btn.textContent = show ? "Hide" : "Show";
      btn.setAttribute("aria-pressed", show ? "true" : "false");
      input.focus();
    });
  });

  // 4. Copy-to-clipboard for codes in the dev mailbox.
  document.querySelectorAll("[data-copy]").forEach(function (btn) {
    var source = btn.parentElement && btn.parentElement.querySelector("[data-copy-source]");
    if (!source) return;
    btn.hidden = false;
    btn.setAttribute("aria-label", "Copy code " + source.textContent.trim());
    btn.addEventListener("click", function () { copy(btn, source.textContent.trim(), source); });
  });

  // Copies `value`, says so on the button for a moment, and selects `element` where the
  // clipboard is out of reach (plain HTTP on another host than localhost).
  function copy(btn, value, element) {
    var label = btn.textContent;
    var done = function () {
      btn.textContent = "Copied";
      btn.setAttribute("aria-live", "polite");
      setTimeout(function () { btn.textContent = label; }, 1600);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(done, function () { selectText(element); });
    } else {
      selectText(element);
    }
  }

  function selectText(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  // 5. Verification code: keep digits only (paste of "123 456" or "123-456" still works).
  var code = document.querySelector("input[autocomplete='one-time-code']");
  if (code) {
    code.addEventListener("input", function () {
      var digits = code.value.replace(/\D+/g, "").slice(0, 6);
      if (digits !== code.value) code.value = digits;
    });
    // maxlength would cut "123 456" to "123 45" before the input event sees it.
    code.addEventListener("paste", function (event) {
      var text = (event.clipboardData || window.clipboardData).getData("text") || "";
      var digits = text.replace(/\D+/g, "").slice(0, 6);
      if (digits) {
        event.preventDefault();
        code.value = digits;
      }
    });
  }

  // 6. Fresh recovery codes: one button copies them all, a code a line.
  document.querySelectorAll("[data-copy-codes]").forEach(function (btn) {
    var list = document.querySelector("[data-recovery-codes]");
    if (!list) return;
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var codes = Array.prototype.map.call(list.querySelectorAll("[data-recovery-code]"), function (code) {
        return code.textContent.trim();
      });
      copy(btn, codes.join("\n"), list);
    });
  });

  // 7. An avatar whose address does not load (a typo, a dead link, a blocked host) is removed, so
  //    the initials under it show instead of a broken-image icon.
  document.querySelectorAll("img.avatar__img").forEach(function (img) {
    function fallBack() { img.remove(); }
    if (img.complete && img.naturalWidth === 0) fallBack();
    else img.addEventListener("error", fallBack);
  });

  // 8. Password strength: the server's own rule (POST /auth/password-strength) judges what is typed,
  // a moment after typing stops, so the meter and the form's refusal always agree.
  document.querySelectorAll("[data-strength-for]").forEach(function (meterBox) {
    var input = document.getElementById(meterBox.getAttribute("data-strength-for"));
    var meter = meterBox.querySelector("meter");
    var text = meterBox.querySelector("[data-strength-text]");
    if (!input || !meter || !text || !window.fetch) return;
    // The box keeps its place from the start, an empty bar until there is a verdict: appearing
    // under the field would push the submit button down just as someone (or a test) clicks it.
    function idle() {
      meter.value = 0;
      meterBox.classList.add("strength--idle");
    }
    meterBox.hidden = false;
    idle();
    var form = input.form;
    var timer = null;
    var asked = 0;
    function field(name) {
      var element = form && form.elements.namedItem(name);
      return element && element.value ? element.value : undefined;
    }
    function ask() {
      var password = input.value;
      if (!password) { asked += 1; idle(); return; } // and a verdict still on its way is dropped
      var ticket = ++asked;
      fetch("/auth/password-strength", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        credentials: "same-origin",
        body: JSON.stringify({ password: password, email: field("email"), name: field("name") })
      }).then(function (reply) { return reply.ok ? reply.json() : null; }).then(function (answer) {
        if (!answer || ticket !== asked) return;
        meterBox.classList.remove("strength--idle");
        meter.value = answer.score + 1; // a sliver even at 0, so the bar is seen
        meterBox.classList.toggle("strength--refused", !answer.acceptable);
        text.textContent = answer.acceptable ? "Strength: " + answer.label : answer.message;
      }).catch(idle);
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 250);
    });
  });

  // An app's logo that does not load: show the app's name in its place.
  document.querySelectorAll("img[data-app-logo-img]").forEach(function (img) {
    function fallBack() {
      img.hidden = true;
      var name = img.parentNode.querySelector("[data-app-logo-name]");
      if (name) name.hidden = false;
    }
    if (img.complete && img.naturalWidth === 0) fallBack();
    else img.addEventListener("error", fallBack);
  });

  // Back to an app after signing in: follow the page's link (a redirect here could break the
  // form-action policy of the page whose form started the sign-in).
  var follow = document.querySelector("a[data-follow]");
  if (follow) window.location.replace(follow.href);
})();
