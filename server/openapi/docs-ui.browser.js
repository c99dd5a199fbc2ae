/*
 * The /docs page's own script (served by docs-ui.ts as a Swagger UI theme script, after Swagger UI's bundle and
 * before `window.onload` builds the UI). Plain browser JavaScript, no build step: it is sent as written, in one
 * closure after the text of contracts/sha256.js.
 *
 * Development mode: a panel takes an API key and its secret; every "Try it out" request to this origin's /v1 is
 * signed here (HMAC-SHA256 of `<timestamp>.<METHOD> <path and query as sent>\n<raw body>`, a fresh X-Timestamp per
 * request). The secret lives only in this closure, as a non-extractable WebCrypto key (or, where the page is not a
 * secure context and WebCrypto is absent, as its bytes for the fallback below): never stored, never sent.
 * Production mode: the panel explains signing and links the guides; Swagger UI offers no "Try it out".
 */
// biome-ignore lint/correctness/noUnusedVariables: called by the page that embeds this script (docs-ui.ts)
function clinicDocs(mode, links) {
  var encoder = new TextEncoder();
  var state = { apiKey: null, sign: null, offsetSeconds: 0 };

  // ------------------------------------------------------------------ HMAC-SHA256

  function hex(bytes) {
    var out = '';
    for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return out;
  }

  function concat(a, b) {
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  // hmacSha256 (contracts/sha256.js, inlined before this script by docs-ui.ts), for pages served over plain HTTP to
  // another machine, where browsers offer no crypto.subtle.
  function hmacSha256Fallback(keyBytes) {
    return (message) => Promise.resolve(hex(hmacSha256(keyBytes, message)));
  }

  /** A signer for the secret: `message bytes → Promise<lowercase hex>`. The key is the secret's UTF-8 text. */
  function signerFor(secret) {
    var keyBytes = encoder.encode(secret);
    var subtle = window.crypto?.subtle;
    if (!subtle) return Promise.resolve({ sign: hmacSha256Fallback(keyBytes), engine: 'javascript' });
    return subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then((key) => ({
      engine: 'webcrypto',
      sign: (message) => subtle.sign('HMAC', key, message).then((signature) => hex(new Uint8Array(signature))),
    }));
  }

  // ------------------------------------------------------------------ Swagger UI hooks

  function setHeader(headers, name, value) {
    // Swagger UI may have put the same header under another case (the document's apiKey schemes).
    Object.keys(headers).forEach((existing) => {
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    });
    headers[name] = value;
  }

  function isPlainObject(value) {
    return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
  }

  /** Swagger UI's requestInterceptor: signs requests to this origin's /v1 with a fresh timestamp. */
  function requestInterceptor(request) {
    var url = new URL(request.url, window.location.href);
    if (url.origin !== window.location.origin || url.pathname.indexOf('/v1/') !== 0 || !state.sign) return request;
    // What fetch will send: the URL as serialized by the URL parser, the body as one string of JSON.
    request.url = url.href;
    if (isPlainObject(request.body) || Array.isArray(request.body)) request.body = JSON.stringify(request.body);
    if (request.body != null && typeof request.body !== 'string') {
      status(
        `This request body is not text (${Object.prototype.toString.call(request.body)}): it is sent unsigned.`,
        'error',
      );
      return request;
    }
    // fetch upper-cases GET or POST but sends `patch` as given: send the method as signed.
    request.method = String(request.method || 'GET').toUpperCase();
    var body = request.method === 'GET' || request.body == null ? '' : request.body;
    var timestamp = String(Math.floor(Date.now() / 1000) + state.offsetSeconds);
    var message = concat(
      encoder.encode(`${timestamp}.${request.method} ${url.pathname}${url.search}\n`),
      encoder.encode(body),
    );
    return state.sign(message).then((signature) => {
      request.headers = request.headers || {};
      setHeader(request.headers, 'X-API-Key', state.apiKey);
      setHeader(request.headers, 'X-Timestamp', timestamp);
      setHeader(request.headers, 'X-Signature', signature);
      return request;
    });
  }

  /** Learns the appliance's time from a refused timestamp, so the next request signs with it (development clock moves). */
  function responseInterceptor(response) {
    var body = response?.body;
    var error = body?.error;
    if (
      state.sign &&
      response.status === 401 &&
      error &&
      error.code === 'AUTH_TIMESTAMP_EXPIRED' &&
      error.details &&
      typeof error.details.server_timestamp === 'number'
    ) {
      state.offsetSeconds = error.details.server_timestamp - Math.floor(Date.now() / 1000);
      status(
        'The appliance clock is ' +
          state.offsetSeconds +
          " s away from this browser's (appliance_offset_seconds: " +
          error.details.appliance_offset_seconds +
          "): the next requests sign with the appliance's time. Execute again.",
        'warning',
      );
    }
    return response;
  }

  // ------------------------------------------------------------------ Idempotency-Key for writes

  /** A UUID v4 from getRandomValues (randomUUID is absent outside secure contexts, like crypto.subtle). */
  function uuid() {
    var bytes = window.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var h = hex(bytes);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // Keys this page filled in: a key still holding one was not chosen by the reader, so the next Execute is a new
  // logical write and gets a fresh key. A key the reader typed stays, so a replay can be tried on purpose.
  var generatedKeys = new Set();

  /**
   * A Swagger UI plugin: before Execute validates an operation's parameters (a required header left empty stops
   * the request in the page), an empty or page-filled Idempotency-Key gets a fresh UUID, shown in its field.
   */
  function idempotencyKeyPlugin() {
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            validateParams:
              (original, system) =>
              (pathMethod, ...rest) => {
                var parameters = system.specSelectors
                  .specJsonWithResolvedSubtrees()
                  .getIn(['paths'].concat(pathMethod, ['parameters']));
                if (parameters?.forEach) {
                  parameters.forEach((parameter) => {
                    var header = parameter?.get?.('in') === 'header' && String(parameter.get('name')).toLowerCase();
                    if (header !== 'idempotency-key') return;
                    var current = system.specSelectors.parameterWithMetaByIdentity(pathMethod, parameter).get('value');
                    if (current && !generatedKeys.has(current)) return;
                    var fresh = uuid();
                    generatedKeys.add(fresh);
                    system.specActions.changeParamByIdentity(pathMethod, parameter, fresh);
                  });
                }
                return original(pathMethod, ...rest);
              },
          },
        },
      },
    };
  }

  window.clinicDocs = {
    requestInterceptor: requestInterceptor,
    responseInterceptor: responseInterceptor,
    idempotencyKeyPlugin: idempotencyKeyPlugin,
  };

  // ------------------------------------------------------------------ the panel

  function element(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach((name) => {
      node.setAttribute(name, attributes[name]);
    });
    (children || []).forEach((child) => {
      node.append(child);
    });
    return node;
  }

  function link(href, text) {
    return element('a', { href: href }, [text]);
  }

  var statusLine = element('p', { role: 'status', class: 'clinic-signing__status', 'aria-live': 'polite' });

  function status(text, kind) {
    statusLine.textContent = text;
    statusLine.setAttribute('data-kind', kind || 'info');
  }

  function mask(apiKey) {
    return apiKey.length > 20 ? `${apiKey.slice(0, 12)}…${apiKey.slice(-4)}` : apiKey;
  }

  function developmentPanel() {
    var keyInput = element('input', {
      id: 'clinic-api-key',
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'xxx_live_…',
    });
    var secretInput = element('input', {
      id: 'clinic-api-secret',
      type: 'password',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: '64 hex characters',
    });
    var use = element('button', { type: 'button', class: 'btn' }, ['Sign with this key']);
    var forget = element('button', { type: 'button', class: 'btn' }, ['Forget the key']);

    use.addEventListener('click', () => {
      var apiKey = keyInput.value.trim();
      var secret = secretInput.value.trim();
      if (!apiKey || !secret) return status('Paste both the API key and its secret.', 'error');
      signerFor(secret).then(
        (signer) => {
          state.apiKey = apiKey;
          state.sign = signer.sign;
          state.offsetSeconds = 0;
          // Only the key (a non-extractable CryptoKey, or the fallback's closure) stays; the field is emptied.
          secretInput.value = '';
          status(
            'Signing "Try it out" requests as ' +
              mask(apiKey) +
              ' (' +
              (signer.engine === 'webcrypto' ? 'WebCrypto' : 'in-page JavaScript, no WebCrypto on this origin') +
              '). Each request gets a fresh X-Timestamp and its X-Signature; the secret is not stored and never sent. Reloading the page forgets it.',
            'ok',
          );
        },
        (error) => {
          status(`The secret could not be used: ${error.message}`, 'error');
        },
      );
    });
    forget.addEventListener('click', () => {
      state.apiKey = null;
      state.sign = null;
      state.offsetSeconds = 0;
      keyInput.value = '';
      secretInput.value = '';
      status('Not signing: "Try it out" requests to /v1 go out without a signature (401).', 'info');
    });
    status(
      'Not signing yet: paste a key and its secret, then "Try it out" requests to /v1 are signed in this page.',
      'info',
    );

    return signingSection(
      'Try it out, signed in this page (development mode)',
      'Every /v1 call carries X-API-Key, X-Timestamp and X-Signature: the lowercase hex HMAC-SHA256, keyed by the API secret, of ',
      ". Paste a key and its secret below: this page computes the signature of each request, with a fresh timestamp. The secret stays in this tab's memory only: it is never stored nor sent. A write left without an Idempotency-Key gets a fresh one per Execute (a key you type is kept, to try a replay). How to sign in your code: ",
      '; typed clients and examples in other languages: ',
      [
        element('div', { class: 'clinic-signing__form' }, [
          element('label', { for: 'clinic-api-key' }, ['API key']),
          keyInput,
          element('label', { for: 'clinic-api-secret' }, ['API secret']),
          secretInput,
          use,
          forget,
        ]),
        statusLine,
      ],
    );
  }

  function productionPanel() {
    return signingSection(
      'Calling the API',
      'Every /v1 call is signed: X-API-Key, X-Timestamp (Unix seconds, within 300 s of the appliance clock) and X-Signature, the lowercase hex HMAC-SHA256, keyed by the API secret, of ',
      '. A fixed value typed into this page can never work, and an API secret is not to be pasted into a web page in production: "Try it out" is off here (in development mode this page signs it). Sign in your code: ',
      '; typed clients and examples in Python, PHP, C# and Java: ',
      [],
    );
  }

  /** The signing panel above the operations: how a call is signed (the string signed, the guides), then `more`. */
  function signingSection(title, signed, howToSign, clients, more) {
    return element(
      'section',
      { class: 'clinic-signing', 'aria-label': 'Request signing' },
      [
        element('h2', {}, [title]),
        element('p', {}, [
          signed,
          element('code', {}, ['<timestamp>.<METHOD> <path and query as sent>\\n<raw body>']),
          howToSign,
          link(links.signing, 'the signing guide'),
          clients,
          link(links.clients, 'clients'),
          '.',
        ]),
      ].concat(more),
    );
  }

  var panel = mode === 'development' ? developmentPanel() : productionPanel();
  var root = document.getElementById('swagger-ui');
  root.parentNode.insertBefore(panel, root);
}
