# The image every g2w cluster node runs (cluster.yaml, k8s/): CUDA runtime, ffmpeg, Python 3.11
# and the project installed from requirements.lock, so every node has the same pinned versions.
#   docker build -t g2w:0.1.0 .
#   docker tag g2w:0.1.0 <registry>/g2w:0.1.0 && docker push <registry>/g2w:0.1.0
# H100/H200 nodes have no NVENC: encoding runs on CPUs (libx264), so the runtime image suffices.
FROM nvidia/cuda:12.8.1-cudnn-runtime-ubuntu22.04

ENV DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends software-properties-common \
 && add-apt-repository -y ppa:deadsnakes/ppa \
 && apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends \
      python3.11 python3.11-venv python3.11-dev ffmpeg fonts-dejavu-core \
      openssh-client rsync sudo git curl ca-certificates build-essential \
 && rm -rf /var/lib/apt/lists/*

# One venv first on PATH: `python`, `ray` and `g2w` are the pinned ones for every user and shell,
# which is what the cluster launcher's setup and start commands run.
RUN python3.11 -m venv /opt/g2w
ENV PATH=/opt/g2w/bin:$PATH VIRTUAL_ENV=/opt/g2w

WORKDIR /opt/g2w-src
# Dependencies first, so editing code does not reinstall torch.
COPY requirements.lock pyproject.toml README.md ./
RUN pip install -q --upgrade pip \
 && pip install -q -r requirements.lock
COPY g2w g2w
COPY ray_jobs ray_jobs
COPY serve serve
RUN pip install -q --no-deps -c requirements.lock -e . \
 && python -c "import g2w, ray; print('g2w on ray', ray.__version__)"

WORKDIR /root
CMD ["bash"]
