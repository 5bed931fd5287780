import { budgetPeriodStart, budgetRefusal, budgetResetsAt, presentBudget } from "./budgets.js";

describe("key budgets", () => {
  const created = new Date("2026-01-15T08:00:00.000Z");

  it("when a period is asked for, then a day and a month start at UTC midnight, and a total budget at the key's creation", () => {
    const at = new Date("2026-11-30T23:59:59.999Z");
    expect(budgetPeriodStart("day", at, created).toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(budgetPeriodStart("month", at, created).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(budgetPeriodStart("total", at, created)).toBe(created);
    expect(budgetResetsAt("day", new Date("2026-11-30T00:00:00.000Z"))!.toISOString()).toBe(
      "2026-12-01T00:00:00.000Z",
    );
    expect(budgetResetsAt("month", new Date("2026-12-01T00:00:00.000Z"))!.toISOString()).toBe(
      "2027-01-01T00:00:00.000Z",
    );
    expect(budgetResetsAt("total", created)).toBeNull();
  });

  it("when a run is refused, then the message names the budget, what is used, what the run needs and the reset", () => {
    const periodStart = new Date("2026-11-25T00:00:00.000Z");
    expect(budgetRefusal({ tokens: 500, period: "day", used: 496, periodStart }, 5)).toBe(
      "This API key's daily budget of 500 tokens cannot cover this run: 496 used today (UTC) (runs in flight included), this run needs up to 5. The budget resets at 2026-11-26T00:00:00.000Z.",
    );
    expect(budgetRefusal({ tokens: 10, period: "total", used: 10, periodStart: created }, 5)).toMatch(
      /total budget of 10 tokens .* 10 used in all .* Raise the budget/,
    );
  });

  it("when a key's counter belongs to a period that has ended, then it is shown as unused", () => {
    const key = {
      budgetTokens: 100,
      budgetPeriod: "day" as const,
      budgetUsed: 80,
      budgetPeriodStart: new Date("2026-11-24T00:00:00.000Z"),
      createdAt: created,
    };
    expect(presentBudget(key, new Date("2026-11-24T12:00:00.000Z"))).toMatchObject({
      used: 80,
      remaining: 20,
    });
    expect(presentBudget(key, new Date("2026-11-25T00:00:00.000Z"))).toEqual({
      tokens: 100,
      period: "day",
      used: 0,
      remaining: 100,
      period_start: "2026-11-25T00:00:00.000Z",
      resets_at: "2026-11-26T00:00:00.000Z",
    });
    expect(presentBudget({ ...key, budgetTokens: null, budgetPeriod: null })).toBeNull();
  });
});
