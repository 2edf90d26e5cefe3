import { Alert } from "@/components/ui/alert";

/** Shown to members above anything only an admin can change; the server refuses them anyway. */
export function ReadOnlyNotice({ what }: { what: string }) {
  return (
    <Alert tone="info" title="View only">
      You are signed in as a member: you can see {what}, and an admin of your organisation can make changes.
    </Alert>
  );
}
