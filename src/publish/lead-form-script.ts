import { createHash } from "node:crypto";
import type { ErrorCode } from "../errors/catalog.ts";

/*
 * What the lead form of a merchant's page says to a person, in French, whoever answers: the page's
 * script (with JavaScript, the JSON lead endpoint answers) and the server (without JavaScript, the
 * form is posted to the page itself, src/publish/lead-form.ts). One table for both: the script
 * carries it as data. No error code is ever shown: a person reads what happened and what to do.
 */

/**
 * The API's field messages (technical English, for agents) as a person reads them: the first
 * pattern that matches gives the sentence, `$1` standing for the pattern's first group.
 */
export const FIELD_ISSUES_FR: readonly (readonly [pattern: string, french: string])[] = [
  ["^is required$|^must not be empty$", "Ce champ est obligatoire."],
  ["^must be at most ([0-9]+) characters$", "Ce champ ne doit pas dépasser $1 caractères."],
  ["email address", "Saisissez une adresse e-mail valide, par exemple nom@exemple.fr."],
  [
    "phone number",
    "Saisissez un numéro de téléphone valide (chiffres, espaces, points ou tirets, + en tête possible).",
  ],
  ["one line|control characters", "Ce champ contient des caractères non acceptés."],
  ["^must be one of", "Choisissez une des valeurs proposées."],
  ["date", "Saisissez une date valide."],
  ["^must be at most ([0-9]+)$", "Saisissez un nombre inférieur ou égal à $1."],
  ["^must not be negative$", "Saisissez un nombre positif."],
  ["number|integer", "Saisissez un nombre valide."],
  ["true or false", "Choisissez Oui ou Non."],
  ["is not a field", "Ce champ n'est pas accepté par ce formulaire."],
  ["^must be given once$", "Ce champ a été envoyé deux fois."],
];
export const FIELD_ISSUE_FALLBACK_FR = "Cette valeur n'est pas acceptée.";

/** A field message of the API, in French. */
export function frenchIssue(message: string): string {
  for (const [pattern, french] of FIELD_ISSUES_FR) {
    const match = new RegExp(pattern).exec(message);
    if (match) return french.replace("$1", match[1] ?? "");
  }
  return FIELD_ISSUE_FALLBACK_FR;
}

/** Why a lead was not sent, by the API's error code. */
export const LEAD_FAILURES_FR: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: "Certains champs sont à corriger.",
  CONTACT_DISABLED: "Ce commerçant ne peut pas recevoir de demande pour le moment.",
  MERCHANT_NOT_FOUND: "Ce commerçant n'est plus référencé.",
  RATE_LIMITED: "Trop de demandes envoyées depuis votre connexion. Réessayez un peu plus tard.",
  SERVICE_SUSPENDED: "Le service est momentanément indisponible. Réessayez plus tard.",
  PAYLOAD_TOO_LARGE: "Votre message est trop long.",
  CONFLICT:
    "Vous avez déjà envoyé cette demande il y a moins de 24 heures, avec autant de messages qu'elle en accepte : attendez la réponse du commerçant.",
};
export const LEAD_FAILURE_FALLBACK_FR = "La demande n'a pas pu être envoyée.";

export function leadFailureFr(code: string | undefined): string {
  return (code && LEAD_FAILURES_FR[code as ErrorCode]) || LEAD_FAILURE_FALLBACK_FR;
}

/** What a sent lead's answer says: the first sentence, then the tracking number and code. */
export const LEAD_SENT_FR = {
  /** `{merchant}` stands for the merchant's name. */
  created: "Votre demande a bien été transmise à {merchant}.",
  deduplicated:
    "Vous avez déjà envoyé cette demande il y a moins de 24 heures. Si votre message était nouveau, il y a été ajouté et transmis. Voici son suivi.",
  trackingNumber: "Numéro de suivi : ",
  trackingCode: "Code de suivi à conserver : ",
  follow: "Avec ce code, suivez votre demande sur la page « Suivre une demande » : ",
  followButton: "Suivre ma demande",
} as const;

/** The page where a person follows a request with its tracking code (src/publish/lead-tracking.ts). */
export const TRACKING_PAGE_PATH = "/suivi";
/** The tracking page's form field that carries the code. */
export const TRACKING_CODE_FIELD = "code";
/** The lead form's hidden field that carries the page's form token. */
export const FORM_TOKEN_FIELD = "form_token";

/**
 * The lead form's behaviour with JavaScript: collects the fields as the lead contract describes
 * them (sector fields under `metadata`, numbers as numbers, yes/no as booleans), posts JSON to the
 * lead endpoint (`data-api`) with the page's form token in X-Lead-Form-Token, and says in French
 * what happened: the tracking number and code with the way to the tracking page on success, the
 * refusal or the fields to correct otherwise. Same for every merchant, so it is a constant; the
 * Content-Security-Policy of the pages allows it by its hash (page-policy.ts).
 */
export const LEAD_FORM_SCRIPT = `(function () {
  var form = document.getElementById("lead-form");
  if (!form || !window.fetch) return;
  var status = document.getElementById("lead-status");
  var button = form.querySelector("button[type=submit]");
  var ISSUES = ${JSON.stringify(FIELD_ISSUES_FR)};
  var ISSUE_FALLBACK = ${JSON.stringify(FIELD_ISSUE_FALLBACK_FR)};
  var FAILURES = ${JSON.stringify(LEAD_FAILURES_FR)};
  var FAILURE_FALLBACK = ${JSON.stringify(LEAD_FAILURE_FALLBACK_FR)};
  var SENT = ${JSON.stringify(LEAD_SENT_FR)};
  var TRACKING_PAGE = ${JSON.stringify(TRACKING_PAGE_PATH)};
  var TRACKING_FIELD = ${JSON.stringify(TRACKING_CODE_FIELD)};
  var TOKEN_FIELD = ${JSON.stringify(FORM_TOKEN_FIELD)};
  // The API's field messages are technical English: a person reads them in French.
  function frenchIssue(message) {
    for (var i = 0; i < ISSUES.length; i++) {
      var match = new RegExp(ISSUES[i][0]).exec(message);
      if (match) return ISSUES[i][1].replace("$1", match[1] || "");
    }
    return ISSUE_FALLBACK;
  }
  function localIssue(field) {
    var validity = field.validity;
    if (validity.valueMissing) return "Ce champ est obligatoire.";
    if (validity.tooLong) return "Ce champ ne doit pas dépasser " + field.maxLength + " caractères.";
    if (validity.typeMismatch && field.type === "email") return frenchIssue("must be an email address");
    if (validity.patternMismatch && field.type === "tel") return frenchIssue("must be a phone number");
    if (validity.rangeUnderflow || validity.rangeOverflow || validity.badInput) return "Saisissez une valeur dans les limites indiquées.";
    return ISSUE_FALLBACK;
  }
  function text(tag, value, className) {
    var node = document.createElement(tag);
    node.textContent = value;
    if (className) node.className = className;
    return node;
  }
  function fieldFor(path) {
    return form.elements.namedItem(path);
  }
  function clearErrors() {
    var errors = form.querySelectorAll(".field-error");
    for (var i = 0; i < errors.length; i++) { errors[i].hidden = true; errors[i].textContent = ""; }
    var invalid = form.querySelectorAll("[aria-invalid]");
    for (var j = 0; j < invalid.length; j++) { invalid[j].removeAttribute("aria-invalid"); invalid[j].removeAttribute("aria-describedby"); }
  }
  function markInvalid(path, message) {
    var field = fieldFor(path);
    if (!field || !field.id) return false;
    var error = document.getElementById(field.id + "-erreur");
    field.setAttribute("aria-invalid", "true");
    if (error) { error.textContent = message; error.hidden = false; field.setAttribute("aria-describedby", error.id); }
    return true;
  }
  function collect() {
    var body = { ab_id: form.getAttribute("data-ab-id") };
    var metadata = {};
    for (var i = 0; i < form.elements.length; i++) {
      var field = form.elements[i];
      if (!field.name || field.name === TOKEN_FIELD || field.disabled || field.type === "submit") continue;
      var value = field.value.trim();
      if (value === "") continue;
      var type = field.getAttribute("data-type");
      var typed = type === "number" ? Number(value) : type === "boolean" ? value === "true" : value;
      if (field.name.indexOf("metadata.") === 0) metadata[field.name.slice(9)] = typed;
      else body[field.name] = typed;
    }
    if (Object.keys(metadata).length > 0) body.metadata = metadata;
    return body;
  }
  function localCheck() {
    var ok = true;
    var first = null;
    for (var i = 0; i < form.elements.length; i++) {
      var field = form.elements[i];
      if (!field.name || !field.willValidate || field.checkValidity()) continue;
      markInvalid(field.name, localIssue(field));
      if (!first) first = field;
      ok = false;
    }
    if (first) first.focus();
    return ok;
  }
  // The same way to the tracking page as the server's answer without JavaScript.
  function trackingForm(code) {
    var follow = document.createElement("form");
    follow.method = "post";
    follow.action = TRACKING_PAGE;
    follow.className = "tracking-form";
    var hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = TRACKING_FIELD;
    hidden.value = code;
    follow.appendChild(hidden);
    var submit = text("button", SENT.followButton);
    submit.type = "submit";
    follow.appendChild(submit);
    return follow;
  }
  function showSent(lead, deduplicated) {
    status.className = "lead-status lead-success";
    status.appendChild(text("p", deduplicated ? SENT.deduplicated : SENT.created.replace("{merchant}", form.getAttribute("data-merchant-name"))));
    var number = text("p", SENT.trackingNumber);
    number.appendChild(text("strong", lead.lead_id, "tracking-id"));
    status.appendChild(number);
    if (lead.tracking_token) {
      var code = text("p", SENT.trackingCode);
      code.appendChild(text("code", lead.tracking_token, "tracking-token"));
      status.appendChild(code);
      var follow = text("p", SENT.follow);
      status.appendChild(follow);
      status.appendChild(trackingForm(lead.tracking_token));
    }
  }
  var token = fieldFor(TOKEN_FIELD);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearErrors();
    status.className = "lead-status";
    status.textContent = "";
    if (!localCheck()) {
      status.className = "lead-status lead-error";
      status.textContent = FAILURES.VALIDATION_ERROR;
      return;
    }
    button.disabled = true;
    status.textContent = "Envoi en cours…";
    var headers = { "content-type": "application/json", accept: "application/json" };
    if (token && token.value) headers["x-lead-form-token"] = token.value;
    fetch(form.getAttribute("data-api"), {
      method: "POST",
      headers: headers,
      body: JSON.stringify(collect())
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (payload) {
        return { response: response, payload: payload };
      });
    }).then(function (result) {
      var payload = result.payload || {};
      var lead = payload.lead_id ? payload : (payload.data || {});
      status.textContent = "";
      if (result.response.ok && payload.success !== false && lead.lead_id) {
        showSent(lead, payload.deduplicated === true);
        form.reset();
      } else {
        var error = payload.error || {};
        status.className = "lead-status lead-error";
        status.appendChild(text("p", FAILURES[error.code] || FAILURE_FALLBACK));
        var issues = payload.data && payload.data.issues ? payload.data.issues : [];
        var unplaced = [];
        for (var i = 0; i < issues.length; i++) {
          var french = frenchIssue(issues[i].message);
          if (!markInvalid(issues[i].path, french)) unplaced.push(french);
        }
        if (unplaced.length > 0) status.appendChild(text("p", unplaced.join(" ")));
      }
      status.focus();
    }).catch(function () {
      status.className = "lead-status lead-error";
      status.textContent = "La demande n'a pas pu être envoyée : vérifiez votre connexion et réessayez.";
      status.focus();
    }).then(function () {
      button.disabled = false;
    });
  });
})();`;

/** The script's hash as a Content-Security-Policy source ('sha256-<base64>'). */
export const LEAD_FORM_SCRIPT_SOURCE = `'sha256-${createHash("sha256").update(LEAD_FORM_SCRIPT, "utf8").digest("base64")}'`;
