// The Rownd Hub Gatehouse serves (Templates/rownd-hub.mustache): the sign-in sheet the Rownd SDK
// opens in its web view. It signs in by email code through Gatehouse's own FDI (header mode) and
// hands the session to the app by posting the SDK's `authentication` message to its native handler
// (`window.webkit.messageHandlers.rowndIosSDK`, a JSON string as the SDK decodes it).
(() => {
  "use strict";
  const hub = document.getElementById("rownd-hub");
  if (!hub) return;
  const base = hub.dataset.apiBasePath || "/auth";
  const emailForm = hub.querySelector("[data-hub-email]");
  const guestChoice = hub.querySelector("[data-hub-guest-choice]");
  const codeForm = hub.querySelector("[data-hub-code]");
  const error = hub.querySelector("[data-hub-error]");
  const lead = hub.querySelector("[data-hub-lead]");
  const title = hub.querySelector("[data-hub-title]");
  const firstLead = lead.textContent;
  let device = null;

  function post(message) {
    const handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.rowndIosSDK;
    if (handler) handler.postMessage(JSON.stringify(message));
  }

  function say(text) {
    error.textContent = text || "";
    error.hidden = !text;
  }

  function step(name) {
    emailForm.hidden = name !== "email";
    codeForm.hidden = name !== "code";
    if (guestChoice) guestChoice.hidden = name !== "email";
    const field = (name === "email" ? emailForm : codeForm).querySelector("input");
    if (name !== "done") field.focus();
  }

  async function call(path, body, rid = "passwordless") {
    const response = await fetch(base + path, {
      method: "POST", credentials: "omit", body: JSON.stringify(body),
      headers: { "content-type": "application/json", rid, "fdi-version": "3.0", "st-auth-mode": "header" }
    });
    const json = await response.json().catch(() => ({}));
    if (response.status === 429) throw new Error("Too many tries. Please wait a minute and try again.");
    if (!response.ok) throw new Error(json.message || "Something went wrong. Please try again.");
    return { response, json };
  }

  // Hands the answer's session to the app: the SDK's `authentication` message.
  function finish(response, json) {
    const payload = {
      access_token: response.headers.get("st-access-token"),
      refresh_token: response.headers.get("st-refresh-token"),
      front_token: response.headers.get("front-token"),
      user_type: json.createdNewRecipeUser ? "new_user" : "existing_user"
    };
    const antiCsrf = response.headers.get("anti-csrf");
    if (antiCsrf) payload.anti_csrf = antiCsrf;
    title.textContent = "You're signed in";
    lead.textContent = "Returning to the app…";
    step("done");
    post({ type: "authentication", payload });
  }

  // "Continue as guest": the plugin's guest account, which a later sign-up with its session upgrades.
  async function continueAsGuest() {
    say("");
    try {
      const { response, json } = await call("/plugin/rownd/guest", {}, "session");
      if (json.status !== "OK") throw new Error(json.message || "Guests are not offered here.");
      finish(response, json);
    } catch (failure) {
      say(failure.message);
    }
  }

  if (guestChoice) guestChoice.querySelector("[data-hub-guest]").addEventListener("click", continueAsGuest);

  emailForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    const email = emailForm.querySelector("input").value.trim();
    try {
      const { json } = await call("/signinup/code", { email });
      if (json.status !== "OK") throw new Error(json.reason || "We could not send a code to that address.");
      device = { deviceId: json.deviceId, preAuthSessionId: json.preAuthSessionId };
      lead.textContent = "We sent a 6-digit code to " + email + ". Enter it below.";
      step("code");
    } catch (failure) {
      say(failure.message);
    }
  });

  codeForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    say("");
    const input = codeForm.querySelector("input");
    try {
      const { response, json } = await call("/signinup/code/consume", { ...device, userInputCode: input.value.trim() });
      if (json.status === "INCORRECT_USER_INPUT_CODE_ERROR") {
        const left = json.maximumCodeInputAttempts - json.failedCodeInputAttemptCount;
        throw new Error("That code is not right. " + left + (left === 1 ? " try" : " tries") + " left.");
      }
      if (json.status === "EXPIRED_USER_INPUT_CODE_ERROR") throw new Error("That code has expired. Use another email or ask again.");
      if (json.status !== "OK") {
        step("email");
        throw new Error(json.reason || "That sign-in has ended. Please ask for a new code.");
      }
      finish(response, json);
    } catch (failure) {
      say(failure.message);
      input.select();
    }
  });

  hub.querySelector("[data-hub-restart]").addEventListener("click", () => {
    device = null;
    lead.textContent = firstLead;
    say("");
    step("email");
  });

  // What the SDK calls once the page has loaded (`evaluateJavaScript`): the sheet opens on the email step.
  window.rownd = {
    requestSignIn(options) {
      const hint = options && options.identifier;
      if (hint) emailForm.querySelector("input").value = hint;
      if (options && options.intent === "sign_up") title.textContent = "Create your account";
      step("email");
      // `Rownd.requestSignIn(with: .guest)` asks for a guest straight away.
      if (options && options.sign_in_type === "anonymous" && guestChoice) continueAsGuest();
    },
    signOut() { post({ type: "sign_out", payload: { was_user_initiated: true } }); },
    generateQrCode() {},
    user: { manageAccount() {} },
    setSessionStorage(key, value) {
      try { sessionStorage.setItem(key, value); } catch (_) { /* storage off: nothing to keep */ }
    }
  };
  post({ type: "hub_loaded" });
})();
