// A key's spend budget: at most `tokens` reserved or charged by the runs it creates in one period
// (a UTC day, a UTC month, or the key's whole life). The counting itself is the creation
// statement's (it must be exact under concurrency); these are the rules around it.
export const BUDGET_PERIODS = ["day", "month", "total"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export interface KeyBudget {
  tokens: number;
  period: BudgetPeriod;
}

/** The start of the period that contains `at` (as svc_period_start computes it in SQL). */
export function budgetPeriodStart(period: BudgetPeriod, at: Date, keyCreatedAt: Date): Date {
  switch (period) {
    case "day":
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
    case "month":
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
    case "total":
      return keyCreatedAt;
  }
}

/** When the period that began at `start` ends and the budget is whole again; null: never (total). */
export function budgetResetsAt(period: BudgetPeriod, start: Date): Date | null {
  switch (period) {
    case "day":
      return new Date(start.getTime() + 86_400_000);
    case "month":
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    case "total":
      return null;
  }
}

const PERIOD_WORDS: Record<BudgetPeriod, { adjective: string; span: string }> = {
  day: { adjective: "daily", span: "today (UTC)" },
  month: { adjective: "monthly", span: "this month (UTC)" },
  total: { adjective: "total", span: "in all" },
};

/** The 402 KEY_BUDGET_EXCEEDED message: the budget, what is used, what the run needs, when it resets. */
export function budgetRefusal(
  budget: KeyBudget & { used: number; periodStart: Date },
  needed: number,
): string {
  const words = PERIOD_WORDS[budget.period];
  const resets = budgetResetsAt(budget.period, budget.periodStart);
  return (
    `This API key's ${words.adjective} budget of ${budget.tokens} tokens cannot cover this run: ` +
    `${budget.used} used ${words.span} (runs in flight included), this run needs up to ${needed}.` +
    (resets
      ? ` The budget resets at ${resets.toISOString()}.`
      : " Raise the budget to run more with this key.")
  );
}

/** A key's budget as owners see it: used is 0 when its counter belongs to a period that has ended. */
export function presentBudget(
  key: {
    budgetTokens: number | null;
    budgetPeriod: BudgetPeriod | null;
    budgetUsed: number;
    budgetPeriodStart: Date | null;
    createdAt: Date;
  },
  now = new Date(),
) {
  if (key.budgetTokens === null || key.budgetPeriod === null) return null;
  const start = budgetPeriodStart(key.budgetPeriod, now, key.createdAt);
  const used = key.budgetPeriodStart?.getTime() === start.getTime() ? key.budgetUsed : 0;
  return {
    tokens: key.budgetTokens,
    period: key.budgetPeriod,
    used,
    remaining: Math.max(0, key.budgetTokens - used),
    period_start: start.toISOString(),
    resets_at: budgetResetsAt(key.budgetPeriod, start)?.toISOString() ?? null,
  };
}
