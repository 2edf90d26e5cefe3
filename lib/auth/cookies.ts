/**
 * Session cookies are Secure in every production server, whatever AUTH_URL says: a server behind a
 * proxy that terminates TLS sees plain http, and a cookie sent over http could be read on the way.
 * Outside production they are Secure when the public URL is https. next-auth then names them
 * with the `__Secure-` prefix, so every reader of the cookie takes its name from here.
 */
export function secureCookies(): boolean {
  if (process.env.NODE_ENV === "production") return true;
  return (process.env.NEXTAUTH_URL ?? process.env.AUTH_URL ?? "").startsWith("https://");
}

export function sessionCookieName(): string {
  return `${secureCookies() ? "__Secure-" : ""}next-auth.session-token`;
}
