/** A run's output as media: an image grid, a video player, an audio player; anything else as JSON. */
export function Outputs({ output }: { output: Record<string, unknown> }) {
  const list = (key: string) =>
    Array.isArray(output[key])
      ? (output[key] as unknown[]).filter((u): u is string => typeof u === "string")
      : [];
  const images = list("images");
  const videos = list("video");
  const audio = list("audio");
  if (!images.length && !videos.length && !audio.length)
    return <pre className="code">{JSON.stringify(output, null, 2)}</pre>;
  return (
    <div className="outputs">
      {images.length ? (
        <div className="image-grid">
          {images.map((url, i) => (
            <a key={url} href={url} target="_blank" rel="noreferrer">
              <img src={url} alt={`Output image ${i + 1}`} loading="lazy" />
            </a>
          ))}
        </div>
      ) : null}
      {videos.map((url) =>
        /\.gif($|\?)/.test(url) ? (
          <img key={url} src={url} alt="Output video (animated)" className="media" />
        ) : (
          <video key={url} src={url} controls className="media" aria-label="Output video" />
        ),
      )}
      {audio.map((url) => (
        <audio key={url} src={url} controls className="media" aria-label="Output audio" />
      ))}
    </div>
  );
}
