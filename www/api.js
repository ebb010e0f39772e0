// api.js: talking to animdex: JSON requests with the token the page holds (a write may need
// one), and downloads that carry it.

import { $, text, make } from '/dom.js';

export const token = () => localStorage.getItem('animdex-token') || '';

export const authorised = (headers = {}) => (token() ? { ...headers, Authorization: `Bearer ${token()}` } : headers);

export const api = async (path, options = {}) => {
  const response = await fetch(path, { ...options, headers: authorised(options.headers) });
  const answer = await response.text();
  let body = null;
  try { body = answer ? JSON.parse(answer) : null; } catch (e) { body = null; }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
};

// With a token, downloads go through fetch (links cannot send an Authorization header).
export async function download(event) {
  if (!token()) return; // a plain link works
  event.preventDefault();
  const link = event.currentTarget;
  const response = await fetch(link.href, { headers: authorised() });
  if (!response.ok) { text($('#readout'), `download failed: ${response.status}`); return; }
  const disposition = response.headers.get('Content-Disposition') || '';
  const match = /filename="([^"]+)"/.exec(disposition);
  const url = URL.createObjectURL(await response.blob());
  const save = make('a', { href: url, download: match ? match[1] : (link.getAttribute('download') || 'download') });
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
