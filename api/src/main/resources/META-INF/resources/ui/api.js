// The HTTP API, from the page's own origin (no CORS, the token never leaves it). The token is kept in
// sessionStorage: it is gone when the tab closes, and no other site can read it.
const KEY = 'punctual.token';

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

/** An answer that is not 2xx: the RFC 9457 problem the API sent, with its field errors by field. */
export class Problem extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.fields = {};
    for (const e of this.body.errors || []) {
      this.fields[e.field] = e.message;
    }
    if (this.body.field && !(this.body.field in this.fields)) {
      this.fields[this.body.field] = this.body.detail;
    }
  }
}

async function send(method, path, { body, headers = {}, signal } = {}) {
  const h = { Accept: 'application/json', ...headers };
  const t = token.get();
  if (t) h.Authorization = `Bearer ${t}`;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  let r;
  try {
    r = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new Problem(0, { detail: `the API cannot be reached (${e.message})` });
  }
  if (!r.ok) {
    let problem = null;
    try {
      problem = await r.json();
    } catch {
      /* not JSON: the status says it */
    }
    // Said after the body is read, so that the page that asked hears of its failure before the sign-in page is drawn.
    if (r.status === 401) window.dispatchEvent(new CustomEvent('punctual:unauthorized'));
    throw new Problem(r.status, problem);
  }
  return r;
}

async function json(method, path, opts) {
  const r = await send(method, path, opts);
  return r.status === 204 ? null : { body: await r.json(), etag: r.headers.get('ETag') };
}

export const api = {
  get: async (path, opts) => (await json('GET', path, opts)).body,
  getWithEtag: (path) => json('GET', path),
  post: async (path, body) => (await json('POST', path, { body })).body,
  put: async (path, body, ifMatch) => (await json('PUT', path, { body, headers: { 'If-Match': ifMatch } })).body,
  del: (path) => send('DELETE', path),
  /** A slice of a run's log: its text, where the next read starts, whether the attempt is over. */
  async log(path, signal) {
    const r = await send('GET', path, { signal, headers: { Accept: 'text/plain' } });
    return {
      text: await r.text(),
      offset: Number(r.headers.get('Punctual-Log-Offset') || 0),
      complete: r.headers.get('Punctual-Log-Complete') === 'true',
    };
  },
};

/** A path with query parameters, leaving out empty ones. */
export function query(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export const seg = encodeURIComponent;

/**
 * Uploads a file as a binary: hashed here, registered, PUT to the presigned URL (S3 checks the signed checksum).
 * Bytes this account already uploaded under the same name are not sent again.
 */
export async function uploadBinary(file, onProgress) {
  const bytes = await file.arrayBuffer();
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  const sha256 = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const same = await api.get(query('/v1/binaries', { sha256, limit: 100 }));
  const reuse = same.items.find((b) => b.uploaded && b.name === file.name);
  if (reuse) return { binary: reuse, reused: true };
  const b = await api.post('/v1/binaries', { name: file.name, sha256, size: file.size });
  await new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', b.uploadUrl);
    for (const [k, v] of Object.entries(b.uploadHeaders || {})) {
      // The browser sets Content-Length itself and refuses to be told it.
      if (k.toLowerCase() !== 'content-length') xhr.setRequestHeader(k, v);
    }
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new Problem(xhr.status, { detail: `the upload was refused (HTTP ${xhr.status})`, field: 'binary' }));
    xhr.onerror = () => reject(new Problem(0, { detail: 'the upload could not reach the storage', field: 'binary' }));
    xhr.send(bytes);
  });
  return { binary: await api.get(`/v1/binaries/${seg(b.id)}`), reused: false };
}
