// The scopes of the v1 document (Authentication, 3). A route declares one; the auth layer
// checks it, and nothing else does.
export const SCOPES = ['SENSORS_READ', 'SENSORS_WRITE', 'EVENTS_READ', 'REPORTS_READ', 'REPORTS_WRITE', 'BEATS_READ', 'BEATS_WRITE'] as const;

export type Scope = (typeof SCOPES)[number];
