"""The tiny image engine's two models, built offline: nothing is downloaded.

``tiny-diffusion`` is a real latent-diffusion pipeline assembled from ``diffusers``
parts — a ``UNet2DConditionModel`` (two blocks, cross-attention), an
``AutoencoderKL`` (3 blocks: a 64x64 image is a 16x16x4 latent) and a DDIM
scheduler — with weights randomly initialised from a fixed torch seed, so every
process builds the same network (~0.85 M parameters). Its pictures are noise-like
texture, but the work is the real thing: ``steps`` UNet forwards (two per step when
guidance is above 1: classifier-free guidance), one VAE decode, an img2img
encode for edits.

Text conditioning without a downloaded tokenizer: the prompt's sha256 seeds an
8x32 embedding (``prompt_embedding``); the unconditional embedding of classifier-free
guidance is zeros. Same prompt, same conditioning; a different prompt, a different
picture. That is all a benchmark of serving needs from a text encoder.

``tiny-text-render`` is a **test render mode, not diffusion**: it draws the prompt's
quoted text (the whole prompt when nothing is quoted) in black with PIL, so an OCR
scorer has a render of known text to read; with ``background="transparent"`` the
background is transparent (RGBA), for the rgba scorer.

Both are deterministic per (model, prompt, seed, size, steps, guidance, reference
image): torch runs on one thread (``torch.set_num_threads(1)``), which is also the
fastest on 2 cores (64x64, 4 steps: ~0.07 s).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image

DIFFUSION_MODEL = "tiny-diffusion"
TEXT_RENDER_MODEL = "tiny-text-render"
MODELS: tuple[str, ...] = (DIFFUSION_MODEL, TEXT_RENDER_MODEL)
DEFAULT_GUIDANCE = 3.0  # the lane's own default (what ``guidance: null`` gets)
DEFAULT_STEPS = 4
EDIT_STRENGTH = 0.6  # how far an edit moves from its reference (img2img)
SIZE_MULTIPLE = 8  # the VAE halves twice and the UNet once
MAX_SIDE = 1024
_EMBED_TOKENS, _EMBED_DIM = 8, 32
_QUOTED = re.compile(r"[\"“”'‘’]([^\"“”'‘’]+)[\"“”'‘’]")


@dataclass(frozen=True)
class RenderSpec:
    prompt: str
    width: int
    height: int
    steps: int
    seed: int
    guidance: float
    background: str | None = None  # "transparent": RGBA (text render mode)


def check_size(width: int, height: int) -> str | None:
    """Why a size cannot be rendered, or None."""
    if not (SIZE_MULTIPLE <= width <= MAX_SIDE and SIZE_MULTIPLE <= height <= MAX_SIDE):
        return f"size {width}x{height}: each side must be {SIZE_MULTIPLE}..{MAX_SIDE}"
    if width % SIZE_MULTIPLE or height % SIZE_MULTIPLE:
        return f"size {width}x{height}: each side must be a multiple of {SIZE_MULTIPLE}"
    return None


def quoted_text(prompt: str) -> str:
    """What the text render mode draws: the quoted parts of the prompt, else all of it."""
    found = _QUOTED.findall(prompt)
    return " ".join(found) if found else prompt


class TinyDiffusion:
    """The randomly initialised pipeline; build once per process (about 0.1 s)."""

    def __init__(self, weights_seed: int = 0) -> None:
        import diffusers
        import torch

        # diffusers' classes are imported lazily: mypy sees no methods on them, so they are Any here
        parts: Any = diffusers

        torch.set_num_threads(1)
        torch.manual_seed(weights_seed)
        self.torch = torch
        self.unet = parts.UNet2DConditionModel(
            sample_size=16,
            in_channels=4,
            out_channels=4,
            block_out_channels=(32, 64),
            layers_per_block=1,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            cross_attention_dim=_EMBED_DIM,
            attention_head_dim=8,
            norm_num_groups=8,
        )
        self.unet.eval()
        self.vae = parts.AutoencoderKL(
            in_channels=3,
            out_channels=3,
            down_block_types=("DownEncoderBlock2D",) * 3,
            up_block_types=("UpDecoderBlock2D",) * 3,
            block_out_channels=(8, 16, 16),
            latent_channels=4,
            norm_num_groups=8,
            layers_per_block=1,
        )
        self.vae.eval()
        self.scheduler = parts.DDIMScheduler(num_train_timesteps=1000)

    def prompt_embedding(self, prompt: str) -> Any:
        seed = int.from_bytes(hashlib.sha256(prompt.encode("utf-8")).digest()[:8], "little")
        gen = self.torch.Generator().manual_seed(seed)
        return self.torch.randn(1, _EMBED_TOKENS, _EMBED_DIM, generator=gen)

    def render(self, spec: RenderSpec, reference: Image.Image | None = None) -> Image.Image:
        from PIL import Image

        torch = self.torch
        with torch.no_grad():
            gen = torch.Generator().manual_seed(spec.seed)
            shape = (1, 4, spec.height // 4, spec.width // 4)
            noise = torch.randn(*shape, generator=gen)
            self.scheduler.set_timesteps(spec.steps)
            timesteps = self.scheduler.timesteps
            if reference is not None:  # img2img: start part-way, from the reference's latent
                pixels = torch.from_numpy(_to_array(reference.convert("RGB").resize((spec.width, spec.height)))).permute(2, 0, 1)[None]
                latent = self.vae.encode(pixels.float() / 127.5 - 1).latent_dist.mean
                start = max(0, int(len(timesteps) * (1 - EDIT_STRENGTH)))
                timesteps = timesteps[start:] if start < len(timesteps) else timesteps[-1:]
                latents = self.scheduler.add_noise(latent, noise, timesteps[:1])
            else:
                latents = noise
            cond = self.prompt_embedding(spec.prompt)
            uncond = torch.zeros_like(cond)
            for t in timesteps:
                eps = self.unet(latents, t, encoder_hidden_states=cond).sample
                if spec.guidance > 1.0:  # classifier-free guidance: a second forward per step
                    eps_u = self.unet(latents, t, encoder_hidden_states=uncond).sample
                    eps = eps_u + spec.guidance * (eps - eps_u)
                latents = self.scheduler.step(eps, t, latents).prev_sample
            image = self.vae.decode(latents).sample
            data = ((image.clamp(-1, 1) + 1) * 127.5).round().to(torch.uint8)[0].permute(1, 2, 0).numpy()
        return Image.fromarray(data, "RGB")


def _to_array(image: Image.Image) -> Any:
    import numpy as np

    return np.asarray(image, dtype=np.uint8).copy()


def render_text(spec: RenderSpec, reference: Image.Image | None = None) -> Image.Image:
    """The test render mode: the prompt's quoted text in black, as large as fits."""
    from PIL import Image, ImageDraw, ImageFont

    transparent = spec.background == "transparent"
    mode = "RGBA" if transparent else "RGB"
    if reference is not None:
        canvas = reference.convert(mode).resize((spec.width, spec.height))
    else:
        canvas = Image.new(mode, (spec.width, spec.height), (255, 255, 255, 0) if transparent else (255, 255, 255))
    text = quoted_text(spec.prompt)
    draw = ImageDraw.Draw(canvas)
    size = spec.height
    font = ImageFont.load_default(size=size)
    while size > 6:
        font = ImageFont.load_default(size=size)
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        if right - left <= spec.width * 0.9 and bottom - top <= spec.height * 0.8:
            break
        size -= 2
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    at = ((spec.width - (right - left)) / 2 - left, (spec.height - (bottom - top)) / 2 - top)
    draw.text(at, text, fill=(0, 0, 0, 255) if transparent else (0, 0, 0), font=font)
    return canvas
