/* Gatehouse — passkeys (WebAuthn) on the sign-in and sign-up pages and the security tab, and on the
   console's sign-in and security pages (their elements name their own URLs: data-options-url,
   data-sign-in-url, data-register-url). The server sends
   options as WebAuthn's JSON ({publicKey: …}); this file turns them into the browser's call,
   posts the answer back as a form field (with the page's CSRF token) and follows {redirect}, or
   shows {message}. Without this file (or a browser without passkeys) nothing is offered. */
(function () {
  "use strict";

  var supported = !!(window.PublicKeyCredential && navigator.credentials);

  // base64url <-> ArrayBuffer, for browsers without parse…FromJSON / toJSON.
  function toBuffer(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    var binary = atob(base64 + "===".slice((base64.length + 3) % 4));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }
  function fromBuffer(buffer) {
    var bytes = new Uint8Array(buffer), binary = "";
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function descriptors(list) {
    return (list || []).map(function (d) { return Object.assign({}, d, { id: toBuffer(d.id) }); });
  }
  function creationOptions(json) {
    if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    return Object.assign({}, json, {
      challenge: toBuffer(json.challenge),
      user: Object.assign({}, json.user, { id: toBuffer(json.user.id) }),
      excludeCredentials: descriptors(json.excludeCredentials)
    });
  }
  function requestOptions(json) {
    if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    return Object.assign({}, json, { challenge: toBuffer(json.challenge), allowCredentials: descriptors(json.allowCredentials) });
  }
  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
    var r = credential.response, response = { clientDataJSON: fromBuffer(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = fromBuffer(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = fromBuffer(r.authenticatorData);
      response.signature = fromBuffer(r.signature);
      if (r.userHandle) response.userHandle = fromBuffer(r.userHandle);
    }
    return { id: credential.id, rawId: fromBuffer(credential.rawId), type: credential.type, response: response };
  }

  // Posts `fields` (plus the page's CSRF token) as a form; resolves with the JSON answer, or
  // rejects with an Error whose message is the server's.
  function post(url, fields) {
    var body = new URLSearchParams();
    var csrf = document.querySelector('input[name="_csrf"]');
    if (csrf) body.set("_csrf", csrf.value);
    Object.keys(fields).forEach(function (key) { if (fields[key] != null) body.set(key, fields[key]); });
    return fetch(url, { method: "POST", body: body, credentials: "same-origin" }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        if (!response.ok) throw new Error(json.message || "The server refused this (HTTP " + response.status + "). Reload the page and try again.");
        return json;
      });
    });
  }

  // What a person is told when the browser's ceremony itself failed.
  function describe(error) {
    if (!error) return "Something went wrong with the passkey. Try again.";
    switch (error.name) {
      case "NotAllowedError":
        return "The passkey request was cancelled or timed out, or no passkey for this site is on this device. Nothing was changed.";
      case "InvalidStateError":
        return "This device already holds a passkey for your account.";
      case "NotSupportedError":
        return "This browser or device has no authenticator that can make a passkey.";
      case "SecurityError":
        return "Passkeys can't be used on this address. Open the page at localhost or the server's public URL.";
      case "AbortError":
        return "";
      default:
        return error.message || "Something went wrong with the passkey. Try again.";
    }
  }

  function show(element, text) {
    if (!element) return;
    element.textContent = text;
    element.hidden = !text;
  }

  // Runs a ceremony started by `button`: disabled meanwhile, then the server's {redirect} followed
  // (else `fallback`), or what went wrong shown in `message`.
  function settle(ceremony, button, message, fallback) {
    show(message, "");
    button.disabled = true;
    ceremony.then(function (answer) {
      window.location.assign(answer.redirect || fallback);
    }).catch(function (error) {
      show(message, describe(error));
    }).then(function () { button.disabled = false; });
  }

  // --- Sign-in page ---------------------------------------------------------------------------
  var signIn = document.querySelector("[data-passkey-sign-in]");
  if (signIn && !supported) {
    signIn.hidden = false;
    signIn.querySelector("[data-passkey-button]").disabled = true;
    show(signIn.querySelector("[data-passkey-message]"), "This browser can't use passkeys. Sign in another way below or above.");
  }
  if (signIn && supported) {
    var form = document.querySelector("form.form");
    var message = signIn.querySelector("[data-passkey-message]");
    var button = signIn.querySelector("[data-passkey-button]");
    var autofill = null;
    signIn.hidden = false;

    var field = function (name) {
      var input = form && form.querySelector('[name="' + name + '"]');
      return input ? input.value.trim() : "";
    };
    var finish = function (credential) {
      return post(signIn.getAttribute("data-sign-in-url") || "/auth/passkey/sign-in", {
        credential: JSON.stringify(credentialJSON(credential)),
        redirect: field("redirect") || null
      }).then(function (answer) { window.location.assign(answer.redirect || "/"); });
    };
    var run = function (email, mediation) {
      return post(signIn.getAttribute("data-options-url") || "/auth/passkey/options", { email: email || null }).then(function (answer) {
        var options = { publicKey: requestOptions(answer.publicKey) };
        if (mediation) {
          autofill = new AbortController();
          options.mediation = mediation;
          options.signal = autofill.signal;
        }
        return navigator.credentials.get(options);
      }).then(function (credential) {
        if (credential) return finish(credential);
      });
    };

    button.addEventListener("click", function () {
      if (autofill) autofill.abort();
      show(message, "");
      button.disabled = true;
      run(field("email"), null).catch(function (error) {
        show(message, describe(error));
      }).then(function () { button.disabled = false; });
    });

    // Autofill: the browser offers the site's passkeys in the email field's suggestions.
    if (PublicKeyCredential.isConditionalMediationAvailable) {
      PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
        if (!available) return;
        run(null, "conditional").catch(function (error) { show(message, describe(error)); });
      });
    }
  }

  // --- Sign-up page: an account with a passkey and no password --------------------------------
  var signUp = document.querySelector("[data-passkey-sign-up]");
  if (signUp && supported) {
    var signUpForm = document.querySelector("form.form");
    var signUpMessage = signUp.querySelector("[data-passkey-message]");
    var signUpButton = signUp.querySelector("[data-passkey-button]");
    signUp.hidden = false;
    signUpButton.addEventListener("click", function () {
      var email = signUpForm.querySelector('[name="email"]');
      var name = signUpForm.querySelector('[name="name"]');
      show(signUpMessage, "");
      if (!email.value.trim() || !email.checkValidity()) {
        show(signUpMessage, "Enter your email address above first: it names your account and your passkey.");
        email.focus();
        return;
      }
      var fields = { email: email.value.trim(), name: name ? name.value.trim() : null };
      settle(post("/auth/sign-up/passkey/options", fields).then(function (answer) {
        fields.user = answer.user;
        return navigator.credentials.create({ publicKey: creationOptions(answer.publicKey) });
      }).then(function (credential) {
        fields.credential = JSON.stringify(credentialJSON(credential));
        return post("/auth/sign-up/passkey", fields);
      }), signUpButton, signUpMessage, "/account");
    });
  }

  // --- Security tab ---------------------------------------------------------------------------
  var create = document.querySelector("[data-passkey-create]");
  if (create && supported) {
    var createMessage = create.querySelector("[data-passkey-message]");
    var createButton = create.querySelector("[data-passkey-create-button]");
    var note = document.querySelector("[data-passkey-unsupported]");
    create.hidden = false;
    if (note) note.hidden = true;
    create.addEventListener("submit", function (event) {
      event.preventDefault();
      settle(post(create.getAttribute("data-options-url") || "/account/security/passkeys/options", {}).then(function (answer) {
        return navigator.credentials.create({ publicKey: creationOptions(answer.publicKey) });
      }).then(function (credential) {
        var name = create.querySelector('[name="name"]');
        return post(create.getAttribute("data-register-url") || "/account/security/passkeys", {
          credential: JSON.stringify(credentialJSON(credential)),
          name: name ? name.value : null
        });
      }), createButton, createMessage, window.location.pathname);
    });
  }
})();
