// Granting or deducting an account's tokens: a ledger entry and an audit entry, never an edit.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { call, type OperatorAccount } from "../../api";
import { CardForm, CountInput } from "../../ui";

export function TokenAdjustment({ path, onSaved }: { path: string; onSaved(): void }) {
  const [amount, setAmount] = useState("");
  const [direction, setDirection] = useState<"grant" | "deduct">("grant");
  const [reason, setReason] = useState("");
  const adjust = useMutation({
    mutationFn: () =>
      call<OperatorAccount>(`${path}/adjustments`, {
        method: "POST",
        body: { amount: (direction === "grant" ? 1 : -1) * Number(amount), reason },
      }),
    onSuccess: () => {
      setAmount("");
      setReason("");
      onSaved();
    },
  });
  return (
    <CardForm
      id="adjust"
      title="Grant or deduct tokens"
      onSubmit={() => adjust.mutate()}
      error={adjust.error}
    >
      <label>
        Action
        <select value={direction} onChange={(e) => setDirection(e.target.value as "grant" | "deduct")}>
          <option value="grant">Grant</option>
          <option value="deduct">Deduct</option>
        </select>
      </label>
      <label>
        Tokens
        <CountInput value={amount} onChange={setAmount} />
      </label>
      <label>
        Reason
        <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <button type="submit" disabled={adjust.isPending || !amount}>
        Record
      </button>
      <span className="hint">
        A ledger entry (GRANT or DEDUCT) and an audit entry; balances are never edited.
      </span>
    </CardForm>
  );
}
