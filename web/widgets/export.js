// export.js - the file half of a widget's SVG/PNG export (base.js imports it on the first export,
// so a page that never exports does not fetch it): the serialized SVG drawn on a canvas as a PNG,
// and a Blob saved under a file name.

// PNG through a canvas: the serialized SVG drawn as an image at `scale` times its size.
export function svgToPNG(svgText, scale = 2) {
  return new Promise((resolve, reject) => {
    const m = svgText.match(/<svg[^>]* width="([\d.]+)" height="([\d.]+)"/);
    const w = m ? Number(m[1]) : 600, h = m ? Number(m[2]) : 400;
    const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
    const img = new Image();
    img.onload = () => {
      try {
        const canvas = document.createElement("canvas");
        canvas.width = Math.round(w * scale);
        canvas.height = Math.round(h * scale);
        canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
        canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
      } catch (err) { reject(err); } finally { URL.revokeObjectURL(url); }
    };
    img.onerror = () => { URL.revokeObjectURL(url); reject(new Error("the SVG could not be drawn as an image (does the page's Content-Security-Policy allow img-src blob:?)")); };
    img.src = url;
  });
}

export function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
