import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { Suspense } from "react";
import { getSessionUser } from "@/lib/dashboard/session";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in · Points" };
export const dynamic = "force-dynamic";

export default async function SignInPage() {
  if (await getSessionUser()) redirect("/dashboard");
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
      </div>
    </main>
  );
}
