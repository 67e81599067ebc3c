# SPDX-License-Identifier: MIT
# mk/verify.mk: `make verify` model-checks the ring buffer and RCU designs
# with spin (models/*.pml); output goes to $(BUILD)/models/.
verify:
	BUILD=$(BUILD) bash models/verify.sh
