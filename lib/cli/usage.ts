import { TEST_CARDS } from "@/lib/billing/test-cards";

const CARD_INDENT = " ".repeat(40);

/** The simulated card kinds, wrapped under the --card description. */
function cardKindLines(): string {
  const lines: string[] = [];
  let line = "";
  for (const kind of Object.keys(TEST_CARDS)) {
    const next = line ? `${line}, ${kind}` : `(${kind}`;
    if (next.length > 50 && line) {
      lines.push(`${CARD_INDENT}${line},`);
      line = kind;
    } else {
      line = next;
    }
  }
  lines.push(`${CARD_INDENT}${line})`);
  return lines.join("\n");
}

/** The operator command's usage, as docs/contract.md §7 documents it. */
export const USAGE = `Usage: npm run points -- <command>

Commands:
  org create --name NAME [options] [--admin-email E] [--stripe-customer cus_…] [--json]
  org update ORG_ID [options] [--stripe-customer cus_… | --new-stripe-customer] [--json]
    --currency USD|GBP|EUR|none         saved default currency
    --api-purchases enabled|disabled    (create: disabled)
    --available yes|no                  eligible for API top-ups (create: yes)
    --card KIND                         repeatable, create only: a simulated saved payment method
${cardKindLines()}
    --default-card INDEX                0-based index into the cards; omitted: no default
    --max-points-per-top-up N | none
    --max-points-balance N | none
    --frequency-limit COUNT/SECONDS | none
    --daily-points-limit N | none
    --paid-points-expire-after-days N | never
                                        Points bought from then on expire N days after purchase
    --simulate-outage on|off            the simulated provider cannot list payment methods (502)
    --low-balance-threshold N | none    below N Points: one balance.low event per crossing
    --auto-recharge on|off              buy --auto-recharge-points on the default card when the
    --auto-recharge-below N             balance falls below N, at most --auto-recharge-monthly-max
    --auto-recharge-points BUNDLE       Points a calendar month (UTC); saving resumes a paused one
    --auto-recharge-monthly-max N | none
    --stripe-customer cus_…             update: relink to this existing customer (no other organisation's)
    --new-stripe-customer               update: relink to a new customer made at the provider
    --admin-email E                     create: the first admin's sign-in email (else one is made up)
  key create ORG_ID [--name NAME] [--scope purchase|spend|read] [--daily-points-cap N] [--json]
                                        prints the new key once; the name (1 to 100 characters,
                                        omitted: "Unnamed key") says what it is for; scope purchase
                                        (default) may buy and spend, spend may spend but not buy,
                                        read may only GET and quote; the cap limits this key's
                                        Points bought in a rolling 24 hours
  key revoke KEY_ID [--json]
  user add ORG_ID --email E --role admin|member [--json]   a generated password, printed once
  grant create ORG_ID --points N --reason TEXT [--reference REF] [--expires-at ISO | --expires-in-days D] [--json]
                                        promotional Points (never refunded, spent before paid Points
                                        of the same expiry); the same reference again grants once
  grant void GRANT_ID [--json]          takes back what is left of a grant
  grant list ORG_ID [--json]            every grant, with what is left of it and its status
  user reset-password USER_ID|--email E [--json]
                                        a new generated password, printed once; the person's
                                        sessions end (forgot the demo admin's? --email admin@demo.example)
  top-up refund TOP_UP_ID [--points N] [--reason TEXT] [--key KEY] [--json]
                                        refunds a paid top-up, whole or N of its Points (money in
                                        proportion); the same request again refunds once
  dispute settle TOP_UP_ID --outcome won|lost [--json]
                                        test mode only: the bank decides the top-up's open dispute
  org spend ORG_ID --points N [--reference R] [--description TEXT] [--json]
                                        spends Points as POST /v3/points/spends does; the same
                                        reference again spends once (omitted: a new one each time)
  reconcile [--json]                    settles purchases left unresolved, and those awaiting payment
  reconcile --report [--json]           lists purchases unresolved for over an hour; changes nothing
  webhook add ORG_ID --url URL [--events TYPE,TYPE…] [--json]
                                        a public https endpoint receives the organisation's events,
                                        signed (Standard Webhooks); its secret is printed once
  webhook list ORG_ID [--json]
  webhook rotate ENDPOINT_ID [--json]   a new secret, printed once; the old one signs for 24 hours
  webhook recover ENDPOINT_ID --since ISO [--json]
                                        sends again what it missed since then (while disabled, or
                                        given up), each once, in sequence order
  webhook disable|enable|delete ENDPOINT_ID [--json]
  webhook deliveries ENDPOINT_ID [--json]
                                        each event's delivery: status, attempts, answer, next try
  audit [--org ORG_ID] [--json]         who changed what, newest first (every organisation's without --org)
  stripe setup-prices [--json]          creates or updates Stripe's Points product and prices (STRIPE_SECRET_KEY)
  help                                  this text

Options also take the form --flag=value. --json prints one JSON object on stdout.
The database is DATABASE_URL's Postgres, or else the embedded PGlite (PGLITE_DIR): .data/pglite, or
with STRIPE_SECRET_KEY .data/stripe/pglite (.data/stripe-test-server/pglite with STRIPE_API_URL);
the embedded one can be opened by one process at a time, so stop the server first or set DATABASE_URL.
A purchase is refunded, settled and reconciled only with the billing provider that charged it.
`;
