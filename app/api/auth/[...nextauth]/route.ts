// /api/auth/* – next-auth's sign-in, sign-out, session and CSRF endpoints
import NextAuth from "next-auth";
import { refuseUnlessFormPost } from "@/lib/auth/form-post";
import { authOptions } from "@/lib/dashboard/auth-options";

export const dynamic = "force-dynamic";

const handler = NextAuth(authOptions);

export { handler as GET };

export async function POST(request: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  return refuseUnlessFormPost(request) ?? handler(request, context);
}
