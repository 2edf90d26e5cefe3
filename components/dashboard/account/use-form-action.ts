"use client";

import { type FormEvent, startTransition, useActionState } from "react";

/**
 * useActionState for a form, submitted from onSubmit rather than the form's `action` prop: React
 * resets a form's fields after an action prop runs, which would wipe what the admin typed when
 * the server refuses it. The clicked button's name and value travel with the data.
 *
 * The server action is always sent the initial state, never the previous answer: an answer may
 * hold a secret shown once (a new API key, a generated password), and that must live only in this
 * browser, never travel back to the server (where it would reach a log).
 */
export function useFormAction<S>(action: (state: Awaited<S>, data: FormData) => Promise<S>, initial: Awaited<S>) {
  const [state, dispatch, pending] = useActionState<S, FormData>((_previous, data) => action(initial, data), initial);
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const submitter = event.nativeEvent instanceof SubmitEvent ? event.nativeEvent.submitter : null;
    const data = new FormData(event.currentTarget, submitter);
    startTransition(() => dispatch(data));
  }
  return { state, pending, onSubmit };
}
