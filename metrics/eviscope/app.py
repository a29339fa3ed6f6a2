"""The metric Space: Hugging Face's standard widget around the EviScope module beside this file."""

from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).with_name("eviscope.py")))
launch_gradio_widget(module)
