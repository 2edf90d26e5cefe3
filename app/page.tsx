export default function Home() {
  return (
    <main className="mx-auto max-w-2xl px-6 py-16">
      <h1 className="text-2xl font-semibold">Points</h1>
      <p className="mt-4 text-slate-600">
        Buy prepaid Points for your organisation through the API: <code>POST /v3/points/top-ups</code> and{" "}
        <code>GET /v3/points/payment-methods</code>, with your organisation&apos;s API key.
      </p>
    </main>
  );
}
