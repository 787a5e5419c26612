# The image every g2w cluster node runs (cluster.yaml, k8s/): Python 3.11, ffmpeg, and the
# project with its runtime dependencies pinned by requirements-image.lock (requirements.lock less
# what only the test and bench extras need; scripts/image_lock.py derives it).
#   docker build -t g2w:0.1.0 .
#   docker tag g2w:0.1.0 <registry>/g2w:0.1.0 && docker push <registry>/g2w:0.1.0
#
# A slim base, no CUDA image: the torch cu130 wheels bring their own CUDA 13.0 runtime, cuDNN
# and NCCL (the nvidia-*-cu13 packages in the lock). What they need from the node is an NVIDIA
# driver >= 580, which the NVIDIA container runtime mounts in from the host (the GPU AMI of
# cluster.yaml, or the GPU node image of the Kubernetes cluster). H100/H200 nodes have no NVENC:
# encoding runs on CPUs (libx264), so no video SDK is needed either.
#
# The container runs as the unprivileged user `ray` (uid 1000, home /home/ray), as Ray's own
# images do; Ray's cluster launcher syncs its files into that home.
FROM python:3.11.14-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
# ffmpeg: decoding and libx264 encoding; fonts: HUD text; openssh-client and rsync: the head's
# autoscaler sets up `ray up` workers over SSH and rsync.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      ffmpeg fonts-dejavu-core openssh-client rsync ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 1000 --shell /bin/bash ray \
 && install -d -o ray -g ray /var/lib/g2w-serve /mnt/shared

# One venv first on PATH: `python`, `ray` and `g2w` are the pinned ones for every shell, which
# is what the cluster launcher's setup and start commands and KubeRay's `ray start` run.
RUN python -m venv /opt/g2w
ENV PATH=/opt/g2w/bin:$PATH VIRTUAL_ENV=/opt/g2w

WORKDIR /opt/g2w-src
# Dependencies first, so editing code does not reinstall torch.
COPY requirements-image.lock ./
RUN pip install -q --upgrade pip \
 && pip install -q -r requirements-image.lock \
 && pip install -q --no-deps rapidocr-onnxruntime==1.4.4  # text detection; --no-deps: see pyproject.toml
COPY pyproject.toml README.md ./
COPY g2w g2w
COPY ray_jobs ray_jobs
COPY serve serve
RUN pip install -q --no-deps -c requirements-image.lock . \
 && python -c "import g2w, ray; print('g2w on ray', ray.__version__)"

USER ray
WORKDIR /home/ray
CMD ["bash"]
