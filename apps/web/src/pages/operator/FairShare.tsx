// An account's weight and runs at once (its turns on busy models), the form filled with what they are now.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { call, type OperatorAccount } from "../../api";
import { CardForm, CountInput, ReasonField } from "../../ui";

export function FairShare({
  account,
  path,
  onSaved,
}: {
  account: OperatorAccount;
  path: string;
  onSaved(): void;
}) {
  const [weight, setWeight] = useState(String(account.weight));
  const [limit, setLimit] = useState(account.max_concurrent_runs ? String(account.max_concurrent_runs) : "");
  const [reason, setReason] = useState("");
  const scheduling = useMutation({
    mutationFn: () =>
      call<OperatorAccount>(path, {
        method: "PATCH",
        body: { weight: Number(weight || 1), max_concurrent_runs: limit ? Number(limit) : null, reason },
      }),
    onSuccess: () => {
      setReason("");
      onSaved();
    },
  });
  return (
    <CardForm
      id="scheduling"
      title="Fair share"
      onSubmit={() => scheduling.mutate()}
      error={scheduling.error}
    >
      <label>
        Weight
        <CountInput value={weight} onChange={setWeight} />
      </label>
      <label>
        Runs at once
        <CountInput value={limit} onChange={setLimit} placeholder="default" />
      </label>
      <ReasonField value={reason} onChange={setReason} />
      <button type="submit" className="secondary" disabled={scheduling.isPending}>
        Save
      </button>
      <span className="hint">
        Turns on busy models in proportion to the weight; empty runs at once: the default.
      </span>
    </CardForm>
  );
}
