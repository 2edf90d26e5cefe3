import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { getSessionUser } from "@/lib/dashboard/session";
import { demoSignInHint } from "@/lib/server/demo-hint";
import { getRuntime } from "@/lib/server/runtime";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in · Points" };
export const dynamic = "force-dynamic";

export default async function SignInPage() {
  if (await getSessionUser()) redirect("/dashboard");
  const hint = await demoSignInHint(getRuntime);
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 text-center">
          <span className="inline-flex h-11 w-11 items-center justify-center rounded-xl bg-indigo-600 text-lg font-bold text-white">
            P
          </span>
          <h1 className="mt-4 text-2xl font-semibold tracking-tight">Sign in to Points</h1>
          <p className="mt-1 text-sm text-slate-600">Manage your organisation&apos;s Points and API purchases.</p>
        </div>
        <div className="rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
          <Suspense>
            <SignInForm />
          </Suspense>
        </div>
        {hint && (
          <aside
            aria-label="Demo sign-in (development only)"
            className="mt-4 rounded-lg border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900"
            data-testid="dev-sign-in-hint"
          >
            <p className="font-semibold">Development server: the demo organisation</p>
            {hint.reset ? (
              <p className="mt-1">
                Sign in as <span className="break-all font-mono">{hint.email}</span> with the password you chose: the
                one kept in <code className="break-all font-mono">{hint.file}</code> was changed and no longer works.
                Forgot it? Stop <code className="font-mono">npm run dev</code> and run{" "}
                <code className="break-all font-mono">{hint.reset}</code> for a new one.
              </p>
            ) : (
              <p className="mt-1">
                Sign in as <span className="break-all font-mono">{hint.email}</span>. Its password was printed in the
                terminal running <code className="font-mono">npm run dev</code>, and is kept in{" "}
                <code className="break-all font-mono">{hint.file}</code>.
              </p>
            )}
          </aside>
        )}
      </div>
    </main>
  );
}
