import { redirect } from "next/navigation";

/**
 * A purchase's page lives under History; links to its old place under Buy (bookmarks, an email, a
 * browser's history) keep working, with the query they carried.
 */
export default async function OldPurchasePage({
  params,
  searchParams,
}: {
  params: Promise<{ topUpId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { topUpId } = await params;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(await searchParams)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, one);
  }
  const search = query.size > 0 ? `?${query.toString()}` : "";
  redirect(`/dashboard/history/${encodeURIComponent(topUpId)}${search}`);
}
