// One process of bench:batches --cpu-load: busy 6 ms of every 20 (0.3 cores), in bursts as a
// neighbour's work comes, until its parent goes.
const spin = () => {
  const end = performance.now() + 6;
  while (performance.now() < end);
  setTimeout(spin, 14);
};
spin();
process.on("disconnect", () => process.exit(0));
