"""plumbline.analysis"""
