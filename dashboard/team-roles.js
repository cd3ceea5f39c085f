//! How the Team page's parts name roles and members.

/** The roles as people read them. */
export const ROLE_NAMES = { owner: 'Owner', admin: 'Admin', developer: 'Developer', billing: 'Billing', viewer: 'Viewer' };

/** The roles a member is given here; `owner` moves only by a transfer. */
export const GIVEN = ['admin', 'developer', 'billing', 'viewer'];

export const roleName = (role) => ROLE_NAMES[role] ?? role;

/** A member as a sentence names them: their name, else their address. */
export const who = (m) => m.name || m.email || m.userId;
