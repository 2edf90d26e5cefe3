import { Alert } from "@/components/ui/alert";

/** Shown to members above anything only an admin can change; the server refuses them anyway. */
export function ReadOnlyNotice({ what }: { what: string }) {
  return (
    <Alert tone="info" title="View only">
      You are signed in as a member, so you can see {what} but not change it. Ask an admin of your organisation.
    </Alert>
  );
}
