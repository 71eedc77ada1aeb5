/* Dev mailbox — live updates over server-sent events (GET /_/mailbox/events). Without this file the
   page is complete as served; a reload shows new mail. Mail text is set with textContent only. */
(function () {
  "use strict";
  var list = document.querySelector("[data-mailbox-list]");
  var empty = document.querySelector("[data-mailbox-empty]");
  var status = document.querySelector("[data-mailbox-status]");
  if (!list || !window.EventSource) return;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(mail) {
    var id = "mail-" + mail.id;
    var article = el("article", "card mail");
    article.id = id;
    article.setAttribute("aria-labelledby", id + "-subject");
    var header = el("header", "mail__header");
    var subject = el("h2", "mail__subject", mail.subject);
    subject.id = id + "-subject";
    header.appendChild(subject);
    header.appendChild(el("p", "mail__time", mail.createdAt));
    article.appendChild(header);
    var to = el("p", "mail__to");
    to.appendChild(el("span", "muted", "To"));
    to.appendChild(document.createTextNode(" "));
    to.appendChild(el("span", "break", mail.to));
    article.appendChild(to);
    if (mail.code) {
      var code = el("div", "mail__code");
      var label = el("span", "mail__code-label", "Code");
      label.id = id + "-code-label";
      var value = el("code", "otp", mail.code);
      value.setAttribute("aria-labelledby", label.id);
      code.appendChild(label);
      code.appendChild(value);
      article.appendChild(code);
    }
    if (mail.link) {
      var link = el("p", "mail__link");
      link.appendChild(el("span", "muted", "Link"));
      link.appendChild(document.createTextNode(" "));
      var anchor = el("a", "break", mail.link);
      anchor.href = mail.link;
      link.appendChild(anchor);
      article.appendChild(link);
    }
    var body = el("details", "mail__body");
    body.appendChild(el("summary", "", "Message text"));
    body.appendChild(el("pre", "", mail.text));
    article.appendChild(body);
    var item = el("li");
    item.appendChild(article);
    return item;
  }

  var source = new EventSource(list.getAttribute("data-events"));
  source.addEventListener("mail", function (event) {
    var mail = JSON.parse(event.data);
    if (document.getElementById("mail-" + mail.id)) return;
    list.insertBefore(card(mail), list.firstChild);
    if (empty) empty.hidden = true;
    if (status) status.textContent = "New mail to " + mail.to + ": " + mail.subject;
  });
  source.addEventListener("cleared", function () {
    while (list.firstChild) list.removeChild(list.firstChild);
    if (empty) empty.hidden = false;
    if (status) status.textContent = "The mailbox was cleared.";
  });
})();
