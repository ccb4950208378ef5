"""plumbline.store"""
