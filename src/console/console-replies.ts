// What every console route shares: HTML replies that are never cached (they may hold a raw
// key), the viewer of a page (who is signed in, and a CSRF token for its forms), form
// fields read safely, and problems turned into readable messages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionOf } from '../platform/http/guard.js';
import { csrfToken } from './console-csrf.js';
import type { FieldError, ProblemError } from '../platform/problems.js';
import type { Viewer } from './views/layout.js';

export function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

export function viewerOf(request: FastifyRequest, reply: FastifyReply): Viewer {
  return { email: sessionOf(request).email, csrf: csrfToken(request, reply) };
}

export type FormBody = Record<string, unknown> | undefined;

/** A field sent once per ticked checkbox; only text values count. */
export function fields(body: FormBody, name: string): string[] {
  const value = body?.[name];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/** One text field of a form (the first, if sent twice); '' when absent. */
export function field(body: FormBody, name: string): string {
  return fields(body, name)[0] ?? '';
}

const LABELS: Record<string, string> = {
  name: 'Name',
  scopes: 'Scopes',
  starting_after: 'Page',
  older: 'Page',
  newer: 'Page',
  email: 'Email',
  password: 'Password',
};

/** "Name: must be at most 200 characters long", from a field error's pointer. */
export function describeField(error: FieldError): string {
  const member = error.pointer.split('/')[1] ?? '';
  return `${LABELS[member] ?? (member || 'The form')}: ${error.detail}`;
}

export function problemMessage(error: ProblemError): { message: string; details: string[] } {
  return { message: error.detail, details: (error.extras.errors ?? []).map(describeField) };
}

/** Fixed notices named in a redirect's query (never text from the URL itself). */
export const NOTICES = {
  revoked: 'The key was revoked. Requests with it are refused from now on.',
  redelivered: 'The delivery was sent again. Its status below shows the new attempt once it is made.',
  'test-sent': 'A test delivery was made: it is the newest delivery below, and its status shows the attempt once it is made.',
  'updates-on': 'Updates are on: events this sensor delivered in the past 30 days get event.updated deliveries as they change.',
  'updates-off': 'Updates are off: no more event.updated deliveries are made for this sensor.',
} as const;

export function noticeOf(request: FastifyRequest): string | null {
  const name = (request.query as { notice?: unknown } | undefined)?.notice;
  return typeof name === 'string' && name in NOTICES ? NOTICES[name as keyof typeof NOTICES] : null;
}
