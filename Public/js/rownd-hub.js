// The Rownd Hub Gatehouse serves: the sign-in sheet the Rownd SDK opens in its web view
// (Templates/rownd-hub.mustache) and the page its magic link opens (rownd-hub-link.mustache). Both
// sign in through Gatehouse's own FDI (header mode) and hand the session to the app by posting the
// SDK's `authentication` message to its native handler (`window.webkit.messageHandlers.rowndIosSDK`,
// a JSON string as the SDK decodes it).
(() => {
  "use strict";
  // A provider round trip in progress (its state, PKCE verifier and the SDK's options), for the callback.
  const FLOW = "gatehouse-hub-flow";

  function nativeHandler() {
    const handlers = window.webkit && window.webkit.messageHandlers;
    return (handlers && handlers.rowndIosSDK) || null;
  }

  function post(message) {
    const handler = nativeHandler();
    if (handler) handler.postMessage(JSON.stringify(message));
  }

  async function fdi(base, method, path, rid, body) {
    const response = await fetch(base + path, {
      method, credentials: "omit", body: body === undefined ? undefined : JSON.stringify(body),
      headers: { "content-type": "application/json", rid, "fdi-version": "3.0", "st-auth-mode": "header" }
    });
    const json = await response.json().catch(() => ({}));
    if (response.status === 429) throw new Error("Too many tries. Please wait a minute and try again.");
    if (!response.ok) throw new Error(json.message || "Something went wrong. Please try again.");
    return { response, json };
  }

  // Posts the SDK's `authentication` message with the session an FDI answer carries.
  function authenticate(response, json) {
    const payload = {
      access_token: response.headers.get("st-access-token"),
      refresh_token: response.headers.get("st-refresh-token"),
      front_token: response.headers.get("front-token"),
      user_type: json.createdNewRecipeUser ? "new_user" : "existing_user"
    };
    if (!payload.refresh_token) {
      throw new Error("This account asks for a second step (an authenticator code), which this sign-in sheet does not offer.");
    }
    const antiCsrf = response.headers.get("anti-csrf");
    if (antiCsrf) payload.anti_csrf = antiCsrf;
    post({ type: "authentication", payload });
  }

  function parts(card) {
    const error = card.querySelector("[data-hub-error]");
    return {
      title: card.querySelector("[data-hub-title]"),
      lead: card.querySelector("[data-hub-lead]"),
      say(text) {
        error.textContent = text || "";
        error.hidden = !text;
      }
    };
  }

  function sheet(hub) {
    const base = hub.dataset.apiBasePath || "/auth";
    const callback = hub.hasAttribute("data-callback");
    const emailForm = hub.querySelector("[data-hub-email]");
    const codeForm = hub.querySelector("[data-hub-code]");
    const signUpInstead = hub.querySelector("[data-hub-sign-up]");
    const { title, lead, say } = parts(hub);
    const first = { title: title.textContent, lead: lead.textContent };
    // What the SDK's `rownd.requestSignIn(…)` passed: intent, post_login_redirect, hint, title, subtitle.
    let options = {};
    let device = null;

    function step(name) {
      if (!emailForm) return;
      emailForm.hidden = name !== "email";
      codeForm.hidden = name !== "code";
      if (name !== "done") (name === "email" ? emailForm : codeForm).querySelector("input").focus();
    }

    function heading() {
      title.textContent = options.title || (options.intent === "sign_up" ? "Create your account" : first.title);
      lead.textContent = options.subtitle || first.lead;
    }

    // The session to the app, then on to where the app asked (`post_login_redirect`), through the
    // server's check: the SDK's default, NATIVE_APP, stays.
    function finish(response, json) {
      authenticate(response, json);
      title.textContent = "You're signed in";
      lead.textContent = "Returning to the app…";
      step("done");
      const target = options.post_login_redirect;
      if (target && target !== "NATIVE_APP") {
        location.assign(hub.dataset.hubPath + "/continue?" + new URLSearchParams({ to: target }));
      }
    }

    emailForm?.addEventListener("submit", async (event) => {
      event.preventDefault();
      say("");
      signUpInstead.hidden = true;
      const email = emailForm.querySelector("input").value.trim();
      try {
        if (options.intent === "sign_in") {
          const { json } = await fdi(base, "GET", "/passwordless/email/exists?" + new URLSearchParams({ email }), "passwordless");
          if (!json.exists) {
            signUpInstead.hidden = false;
            throw new Error("There is no account for " + email + " yet.");
          }
        }
        const { json } = await fdi(base, "POST", "/signinup/code?rownd_display_context=mobile_app", "passwordless", { email });
        if (json.status !== "OK") throw new Error(json.reason || "We could not send a code to that address.");
        device = { deviceId: json.deviceId, preAuthSessionId: json.preAuthSessionId };
        lead.textContent = json.flowType === "USER_INPUT_CODE_AND_MAGIC_LINK"
          ? "We sent a 6-digit code and a sign-in link to " + email + ". Enter the code, or open the link on this phone."
          : "We sent a 6-digit code to " + email + ". Enter it below.";
        step("code");
      } catch (failure) {
        say(failure.message);
      }
    });

    signUpInstead?.addEventListener("click", () => {
      options.intent = "sign_up";
      heading();
      emailForm.requestSubmit();
    });

    codeForm?.addEventListener("submit", async (event) => {
      event.preventDefault();
      say("");
      const input = codeForm.querySelector("input");
      try {
        const { response, json } = await fdi(base, "POST", "/signinup/code/consume", "passwordless", { ...device, userInputCode: input.value.trim() });
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

    hub.querySelector("[data-hub-restart]")?.addEventListener("click", () => {
      device = null;
      heading();
      say("");
      step("email");
    });

    // Google and Apple: the SDK signs in natively and sends the ID token to the FDI itself. A
    // test-mode provider: a round trip in this web view, back to `{hub}/callback`.
    for (const button of hub.querySelectorAll("[data-hub-provider]")) {
      button.addEventListener("click", async () => {
        const name = button.dataset.hubProvider;
        say("");
        if (button.hasAttribute("data-hub-native")) {
          const payload = options.intent ? { intent: options.intent } : {};
          if (name === "google" && options.hint) payload.hint = options.hint;
          post({ type: "trigger_sign_in_with_" + name, payload });
          return;
        }
        try {
          const query = new URLSearchParams({ thirdPartyId: name, redirectURIOnProviderDashboard: hub.dataset.callbackUrl });
          const { json } = await fdi(base, "GET", "/authorisationurl?" + query, "thirdparty");
          if (json.status !== "OK") throw new Error(json.message || "That provider is not available.");
          const state = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
          sessionStorage.setItem(FLOW, JSON.stringify({ name, state, verifier: json.pkceCodeVerifier, options }));
          location.assign(json.urlWithQueryParams + "&" + new URLSearchParams({ state }));
        } catch (failure) {
          say(failure.message);
        }
      });
    }

    // Back from the provider: the state must be the one this web view sent.
    async function complete() {
      const flow = JSON.parse(sessionStorage.getItem(FLOW) || "null");
      sessionStorage.removeItem(FLOW);
      const query = new URLSearchParams(location.search);
      history.replaceState(null, "", location.pathname);
      if (!flow || query.get("state") !== flow.state) throw new Error("This sign-in did not start here, or has already finished.");
      options = flow.options || {};
      if (query.get("error")) throw new Error("The sign-in was cancelled at the provider.");
      const { response, json } = await fdi(base, "POST", "/signinup", "thirdparty", {
        thirdPartyId: flow.name,
        redirectURIInfo: {
          redirectURIOnProviderDashboard: hub.dataset.callbackUrl,
          redirectURIQueryParams: Object.fromEntries(query), pkceCodeVerifier: flow.verifier
        }
      });
      if (json.status === "NO_EMAIL_GIVEN_BY_PROVIDER") throw new Error("The provider did not share an email address.");
      if (json.status !== "OK") throw new Error(json.reason || json.message || "That sign-in did not work.");
      finish(response, json);
    }

    if (callback) {
      complete().catch((failure) => {
        title.textContent = "Sign-in did not finish";
        lead.textContent = "Please go back and try again.";
        say(failure.message);
        hub.querySelector("[data-hub-again]").hidden = false;
      });
    }

    // What the SDK calls once a page has loaded (`evaluateJavaScript`), on every page of the Hub:
    // the sheet opens on the email step; a finishing round trip keeps its own options.
    window.rownd = {
      requestSignIn(given) {
        if (callback) return;
        options = { ...(given || {}) };
        const hint = options.identifier || options.hint;
        if (hint && emailForm) emailForm.querySelector("input").value = hint;
        heading();
        say("");
        if (signUpInstead) signUpInstead.hidden = true;
        step("email");
      },
      signOut() { post({ type: "sign_out", payload: { was_user_initiated: true } }); },
      generateQrCode() {},
      user: { manageAccount() {} },
      setSessionStorage(key, value) {
        try { sessionStorage.setItem(key, value); } catch (_) { /* storage off: nothing to keep */ }
      }
    };
  }

  // The magic link's page. On the phone's browser it hands on to the app, which opens it again in
  // the Hub's web view; there (the native handler is present) it spends the link.
  function linkPage(page) {
    const { title, lead, say } = parts(page);
    const linkCode = location.hash.slice(1);
    const open = page.querySelector("[data-hub-open-app]");
    const appLink = page.dataset.appLink + (linkCode ? "#" + linkCode : "");
    open.href = appLink;
    if (!nativeHandler()) {
      if (linkCode) location.replace(appLink);
      return;
    }
    for (const part of page.querySelectorAll("[data-hub-browser-only]")) part.hidden = true;
    history.replaceState(null, "", location.pathname + location.search);
    title.textContent = "Signing you in…";
    lead.textContent = "One moment.";
    const body = { preAuthSessionId: page.dataset.preAuthSessionId, linkCode };
    fdi(page.dataset.apiBasePath || "/auth", "POST", "/signinup/code/consume", "passwordless", body)
      .then(({ response, json }) => {
        if (json.status !== "OK") throw new Error("This link has been used or has expired. Ask the app for a new one.");
        authenticate(response, json);
        title.textContent = "You're signed in";
        lead.textContent = "Returning to the app…";
      })
      .catch((failure) => {
        title.textContent = "Sign-in did not finish";
        lead.textContent = "";
        say(failure.message);
      });
  }

  const hub = document.getElementById("rownd-hub");
  const link = document.getElementById("rownd-hub-link");
  if (hub) sheet(hub);
  if (link) linkPage(link);
  if (hub || link) post({ type: "hub_loaded" });
})();
