"use client";

import { Button } from "@/components/ui/button";

/** Opens the browser's print dialog, where "Save as PDF" keeps the receipt as a file. */
export function PrintButton({ label = "Print or save as PDF" }: { label?: string }) {
  return (
    <Button variant="secondary" onClick={() => window.print()} className="print:hidden">
      {label}
    </Button>
  );
}
