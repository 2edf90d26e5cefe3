/** A provider call that ran past its budget: its outcome is unknown, exactly like a timeout. */
export class ProviderDeadlineError extends Error {
  constructor(budgetMs: number) {
    super(`The billing provider did not answer within ${budgetMs} ms.`);
    this.name = "ProviderDeadlineError";
  }
}

/**
 * Cuts a provider call off at its budget. The call itself may still finish at the provider; that
 * is why a late answer is never needed: whoever asks next asks about the same payment.
 */
export async function withDeadline<T>(call: Promise<T>, budgetMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderDeadlineError(budgetMs)), budgetMs);
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
