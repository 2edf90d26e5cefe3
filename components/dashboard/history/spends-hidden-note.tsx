/** History's word that spends are not listed while a filter that describes purchases only is set. */
export function SpendsHiddenNote() {
  return (
    <p className="text-sm text-slate-600" data-testid="spends-hidden">
      Spends are not listed while a status, source or after-payment filter is set: those describe purchases only.
    </p>
  );
}
