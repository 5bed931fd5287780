import { available, ledgerEffect } from "./ledger.js";

describe("ledger effects", () => {
  it("when a reservation is charged in part and released in part, then the balance drops by the charge only", () => {
    const entries = [
      ledgerEffect("GRANT", 100),
      ledgerEffect("RESERVE", 10),
      ledgerEffect("CHARGE", 5),
      ledgerEffect("RELEASE", 5),
    ];
    const balance = entries.reduce((s, e) => s + e.balanceDelta, 0);
    const reserved = entries.reduce((s, e) => s + e.reservedDelta, 0);
    expect({ balance, reserved }).toEqual({ balance: 95, reserved: 0 });
  });

  it("when tokens are reserved, then available shrinks but the balance does not", () => {
    expect(ledgerEffect("RESERVE", 7)).toEqual({ balanceDelta: 0, reservedDelta: 7 });
    expect(available({ balance: 20, reserved: 7 })).toBe(13);
  });

  it.each([-1, 1.5, Number.NaN])("when the amount is %p, then it is refused", (amount) => {
    expect(() => ledgerEffect("GRANT", amount)).toThrow(RangeError);
  });
});
